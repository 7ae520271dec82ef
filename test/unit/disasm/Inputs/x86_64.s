# One function per instruction the disassembler must name; assembled by
# llvm-mc at build time so the tests read real encodings.
	.text
	.globl vpdpbusd_zmm
	.type vpdpbusd_zmm, @function
vpdpbusd_zmm:
	vpdpbusd %zmm2, %zmm1, %zmm0
	retq
	.size vpdpbusd_zmm, .-vpdpbusd_zmm

	.globl vpdpbusd_ymm
	.type vpdpbusd_ymm, @function
vpdpbusd_ymm:
	vpdpbusd %ymm2, %ymm1, %ymm0
	retq
	.size vpdpbusd_ymm, .-vpdpbusd_ymm

	.globl vpdpbusd_xmm
	.type vpdpbusd_xmm, @function
vpdpbusd_xmm:
	vpdpbusd %xmm2, %xmm1, %xmm0
	retq
	.size vpdpbusd_xmm, .-vpdpbusd_xmm

	.globl vpdpbusd_vex_ymm
	.type vpdpbusd_vex_ymm, @function
vpdpbusd_vex_ymm:
	{vex} vpdpbusd %ymm2, %ymm1, %ymm0
	retq
	.size vpdpbusd_vex_ymm, .-vpdpbusd_vex_ymm

	.globl vpdpbusds_zmm
	.type vpdpbusds_zmm, @function
vpdpbusds_zmm:
	vpdpbusds %zmm2, %zmm1, %zmm0
	retq
	.size vpdpbusds_zmm, .-vpdpbusds_zmm

	.globl vpdpwssd_zmm
	.type vpdpwssd_zmm, @function
vpdpwssd_zmm:
	vpdpwssd %zmm2, %zmm1, %zmm0
	retq
	.size vpdpwssd_zmm, .-vpdpwssd_zmm

	.globl vdpbf16ps_zmm
	.type vdpbf16ps_zmm, @function
vdpbf16ps_zmm:
	vdpbf16ps %zmm2, %zmm1, %zmm0
	retq
	.size vdpbf16ps_zmm, .-vdpbf16ps_zmm

	.globl tdpbssd
	.type tdpbssd, @function
tdpbssd:
	tdpbssd %tmm2, %tmm1, %tmm0
	retq
	.size tdpbssd, .-tdpbssd

	.globl tdpbsud
	.type tdpbsud, @function
tdpbsud:
	tdpbsud %tmm2, %tmm1, %tmm0
	retq
	.size tdpbsud, .-tdpbsud

	.globl tdpbusd
	.type tdpbusd, @function
tdpbusd:
	tdpbusd %tmm2, %tmm1, %tmm0
	retq
	.size tdpbusd, .-tdpbusd

	.globl tdpbuud
	.type tdpbuud, @function
tdpbuud:
	tdpbuud %tmm2, %tmm1, %tmm0
	retq
	.size tdpbuud, .-tdpbuud

	.globl tdpbf16ps
	.type tdpbf16ps, @function
tdpbf16ps:
	tdpbf16ps %tmm2, %tmm1, %tmm0
	retq
	.size tdpbf16ps, .-tdpbf16ps

	.globl tdpfp16ps
	.type tdpfp16ps, @function
tdpfp16ps:
	tdpfp16ps %tmm2, %tmm1, %tmm0
	retq
	.size tdpfp16ps, .-tdpfp16ps

	.globl tileloadd
	.type tileloadd, @function
tileloadd:
	tileloadd (%rsi,%rdx), %tmm1
	retq
	.size tileloadd, .-tileloadd

	.globl tilestored
	.type tilestored, @function
tilestored:
	tilestored %tmm1, (%rdi,%rdx)
	retq
	.size tilestored, .-tilestored

	.globl ldtilecfg
	.type ldtilecfg, @function
ldtilecfg:
	ldtilecfg (%rdi)
	retq
	.size ldtilecfg, .-ldtilecfg

	.globl vpaddd_zmm
	.type vpaddd_zmm, @function
vpaddd_zmm:
	vpaddd %zmm2, %zmm1, %zmm0
	retq
	.size vpaddd_zmm, .-vpaddd_zmm

	.globl add
	.type add, @function
add:
	addq %rsi, %rdi
	retq
	.size add, .-add

# An entry whose work is in local functions it calls (as -tisa-outline-kernels
# leaves a kernel): a loop calling `piece`, which calls `leaf` and `memcpy`
# (another object's: a relocation, not followed).
	.globl outlined_entry
	.type outlined_entry, @function
outlined_entry:
	movl $4, %ecx
.Lloop:
	callq piece
	decl %ecx
	jne .Lloop
	retq
	.size outlined_entry, .-outlined_entry

	.type piece, @function
piece:
	callq leaf
	callq memcpy
	retq
	.size piece, .-piece

	.type leaf, @function
leaf:
	vpdpbusd %zmm2, %zmm1, %zmm0
	callq piece
	retq
	.size leaf, .-leaf

# No .size: functionBytes must stop at the next symbol.
	.globl no_size
	.type no_size, @function
no_size:
	vpdpbusd %zmm2, %zmm1, %zmm0
	retq
after_no_size:
	ud2

	.data
	.globl table
	.type table, @object
table:
	.long 1, 2, 3, 4
	.size table, 16
