/* Compiled (not run) with a `tisa gen FILE.mlir` header included first
 * (-include): its prototype of matmul.mlir's function takes these
 * descriptors, so a call with the wrong types fails to compile (-Werror). */
void call(tisa_memref_int8_2d *a, tisa_memref_int8_2d *b,
          tisa_memref_int32_2d *c) {
  _mlir_ciface_matmul(a, b, c);
}
