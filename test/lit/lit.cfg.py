# lit configuration for tisa: FileCheck and -verify-diagnostics tests of tisa and tisa-opt.
import os
import lit.formats

config.name = "tisa"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tisa_obj_root, "test", "lit")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]

config.environment["PATH"] = os.pathsep.join(
    [config.tisa_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
# Only the descriptions a test names: no search-path surprises from the developer's environment.
config.environment.pop("TISA_ISA_PATH", None)
config.substitutions.append(("%isa_dir", os.path.join(config.tisa_src_root, "isa-descriptions")))
# tisa's dialect and passes as a plugin of Debian's own mlir-opt (tools/tisa-plugin).
config.substitutions.append(("%tisa_plugin", os.path.join(config.tisa_obj_root, "lib", "TisaPlugin.so")))

# Host features for tests that need the real instruction (they report UNSUPPORTED elsewhere).
try:
    with open("/proc/cpuinfo") as f:
        flags = set()
        for line in f:
            if line.startswith("flags"):
                flags.update(line.split(":", 1)[1].split())
                break
except OSError:
    flags = set()
for flag, feature in [("avx512_vnni", "avx512vnni"), ("avx512_bf16", "avx512bf16"),
                      ("avx_vnni", "avxvnni")]:
    if flag in flags:
        config.available_features.add(feature)
# A test of a skipped differential check needs an instruction this CPU lacks.
if flags and "avx_vnni_int8" not in flags:
    config.available_features.add("no-avxvnniint8")
# AMX kernels run under the project's emulator; the rest of a Sapphire Rapids
# kernel (AVX-512 with VNNI and BF16) runs natively.
if config.tisa_amx_emulator == "ON" and {"avx512_vnni", "avx512_bf16", "avx512bw", "avx512vl"} <= flags:
    config.available_features.add("amx-emulator")
if os.path.exists(os.path.join(config.tisa_tools_dir, "tisa-bench")):
    config.available_features.add("tisa-bench")
if os.path.exists("/usr/bin/qemu-aarch64") and os.path.exists("/usr/aarch64-linux-gnu/lib/libc.a"):
    config.available_features.add("qemu-aarch64")
# The CUDA toolkit's ptxas, as tisa found it at configure time (TISA_PTXAS overrides it).
ptxas = os.environ.get("TISA_PTXAS") or config.tisa_ptxas
if ptxas and os.path.isfile(ptxas) and os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.environment["TISA_PTXAS"] = ptxas
    cuda_include = os.path.join(os.path.dirname(os.path.dirname(ptxas)), "include")
    if os.path.isfile(os.path.join(cuda_include, "cuda.h")):
        config.available_features.add("cuda-headers")
        config.substitutions.append(("%cuda_include", cuda_include))

# A sanitizer build (scripts/sanitize.sh): Debian's uninstrumented mlir-opt loads the instrumented
# plugin with the sanitizer's runtime preloaded; %preload_sanitizer is empty in a normal build.
if config.tisa_sanitizer:
    config.available_features.add("sanitizer")
preload = ("env LD_PRELOAD=" + config.tisa_sanitizer_preload) if config.tisa_sanitizer_preload else ""
config.substitutions.append(("%preload_sanitizer", preload))

# tisa run's JIT cache stays inside the build tree.
config.environment["TISA_CACHE_DIR"] = os.path.join(config.test_exec_root, "jit-cache")
