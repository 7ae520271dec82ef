// One function per instruction the disassembler must name; assembled by
// llvm-mc at build time so the tests read real encodings.
	.text
	.globl neon_sdot
	.type neon_sdot, %function
neon_sdot:
	sdot v0.4s, v1.16b, v2.16b
	ret
	.size neon_sdot, .-neon_sdot

	.globl neon_udot
	.type neon_udot, %function
neon_udot:
	udot v0.4s, v1.16b, v2.16b
	ret
	.size neon_udot, .-neon_udot

	.globl neon_sdot_lane
	.type neon_sdot_lane, %function
neon_sdot_lane:
	sdot v0.4s, v1.16b, v2.4b[1]
	ret
	.size neon_sdot_lane, .-neon_sdot_lane

	.globl neon_usdot
	.type neon_usdot, %function
neon_usdot:
	usdot v0.4s, v1.16b, v2.16b
	ret
	.size neon_usdot, .-neon_usdot

	.globl neon_smmla
	.type neon_smmla, %function
neon_smmla:
	smmla v0.4s, v1.16b, v2.16b
	ret
	.size neon_smmla, .-neon_smmla

	.globl neon_ummla
	.type neon_ummla, %function
neon_ummla:
	ummla v0.4s, v1.16b, v2.16b
	ret
	.size neon_ummla, .-neon_ummla

	.globl neon_usmmla
	.type neon_usmmla, %function
neon_usmmla:
	usmmla v0.4s, v1.16b, v2.16b
	ret
	.size neon_usmmla, .-neon_usmmla

	.globl neon_bfmmla
	.type neon_bfmmla, %function
neon_bfmmla:
	bfmmla v0.4s, v1.8h, v2.8h
	ret
	.size neon_bfmmla, .-neon_bfmmla

	.globl neon_bfdot
	.type neon_bfdot, %function
neon_bfdot:
	bfdot v0.4s, v1.8h, v2.8h
	ret
	.size neon_bfdot, .-neon_bfdot

	.globl sve_sdot
	.type sve_sdot, %function
sve_sdot:
	sdot z0.s, z1.b, z2.b
	ret
	.size sve_sdot, .-sve_sdot

	.globl sve_udot
	.type sve_udot, %function
sve_udot:
	udot z0.s, z1.b, z2.b
	ret
	.size sve_udot, .-sve_udot

	.globl sve_smmla
	.type sve_smmla, %function
sve_smmla:
	smmla z0.s, z1.b, z2.b
	ret
	.size sve_smmla, .-sve_smmla

	.globl sve_ummla
	.type sve_ummla, %function
sve_ummla:
	ummla z0.s, z1.b, z2.b
	ret
	.size sve_ummla, .-sve_ummla

	.globl sve_bfmmla
	.type sve_bfmmla, %function
sve_bfmmla:
	bfmmla z0.s, z1.h, z2.h
	ret
	.size sve_bfmmla, .-sve_bfmmla

	.globl sve_bfdot
	.type sve_bfdot, %function
sve_bfdot:
	bfdot z0.s, z1.h, z2.h
	ret
	.size sve_bfdot, .-sve_bfdot

	.globl a64_add
	.type a64_add, %function
a64_add:
	add x0, x1, x2
	ret
	.size a64_add, .-a64_add


// An entry whose work is in local functions it calls (-tisa-outline-kernels).
	.globl a64_outlined_entry
	.type a64_outlined_entry, %function
a64_outlined_entry:
	mov x9, #4
.Lloop:
	bl a64_piece
	subs x9, x9, #1
	b.ne .Lloop
	ret
	.size a64_outlined_entry, .-a64_outlined_entry

	.type a64_piece, %function
a64_piece:
	sdot v0.4s, v1.16b, v2.16b
	ret
	.size a64_piece, .-a64_piece
