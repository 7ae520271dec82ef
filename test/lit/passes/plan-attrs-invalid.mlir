// What #tisa.plan, #tisa.loop and #tisa.schedule reject, each a located error.
// RUN: tisa-opt %s --split-input-file -verify-diagnostics

// expected-error @+1 {{the program loops of 'k' are not a run of adjacent loops, outer to inner}}
func.func @gap() attributes {p = #tisa.loop<k = [1, 3]>} { return }

// -----

// expected-error @+1 {{instruction loop 'n' takes no program loop: write 'padding'}}
func.func @empty() attributes {p = #tisa.loop<n = []>} { return }

// -----

// expected-error @+1 {{program loop 1 feeds two instruction loops}}
func.func @twice() attributes {p = #tisa.plan<"x", [n = [1], k = [1]]>} { return }

// -----

// expected-error @+1 {{instruction loop 'n' appears twice}}
func.func @name_twice() attributes {p = #tisa.plan<"x", [n = [1], n = [2]]>} { return }

// -----

// expected-error @+1 {{'seg = outer(3)' names no other instruction loop}}
func.func @outer_of_nothing() attributes {p = #tisa.plan<"x", [n = [1], seg = outer(3)]>} { return }

// -----

// expected-error @+1 {{'seg = outer(0)': instruction loop 'n' does not take exactly one program loop}}
func.func @outer_of_padding() attributes {p = #tisa.plan<"x", [n = padding, seg = outer(0)]>} { return }

// -----

// expected-error @+1 {{block '1 : 0' needs a loop >= 0 and a size >= 1}}
func.func @block_zero() attributes {p = #tisa.plan<"x", [n = [1]], blocks = [1 : 0]>} { return }

// -----

// expected-error @+1 {{program loop 1 is blocked twice}}
func.func @block_twice() attributes {p = #tisa.plan<"x", [n = [1]], blocks = [1 : 8, 1 : 16]>} { return }

// -----

// expected-error @+1 {{expected 'swapped' or 'blocks = [...]', each at most once}}
func.func @swapped_twice() attributes {p = #tisa.plan<"x", [n = [1]], swapped, swapped>} { return }

// -----

// expected-error @+1 {{a plan needs the instruction's loops}}
func.func @no_loops() attributes {p = #tisa.plan<"x", []>} { return }

// -----

// expected-error @+1 {{unroll factor 0 is not an integer in [1, 64]}}
func.func @unroll_zero() attributes {s = #tisa.schedule<unroll = [4, 0]>} { return }

// -----

// expected-error @+1 {{kunroll 17 is not an integer in [1, 16]}}
func.func @kunroll() attributes {s = #tisa.schedule<unroll = [4], kunroll = 17>} { return }

// -----

// expected-error @+1 {{schedule field 'fuse' is given twice}}
func.func @fuse_twice() attributes {s = #tisa.schedule<unroll = [4], fuse, fuse>} { return }

// -----

// expected-error @+1 {{unknown schedule field 'order' (expected block, lanes_outer, panel, fuse, edge, kunroll, hold, even_rows)}}
func.func @unknown() attributes {s = #tisa.schedule<unroll = [4], order = 1>} { return }
