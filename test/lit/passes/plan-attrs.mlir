// #tisa.plan, #tisa.loop and #tisa.schedule read back as they print: defaults are left out, names
// that are not keywords are quoted, schedule fields come back in one order.
// RUN: tisa-opt %s | FileCheck %s
// RUN: tisa-opt %s | tisa-opt | FileCheck %s

// CHECK-LABEL: func.func @lane_dot
// CHECK-SAME: plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]]>
// CHECK-SAME: schedule = #tisa.schedule<unroll = [6, 4, 1]>
func.func @lane_dot() attributes {
    plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]]>,
    schedule = #tisa.schedule<unroll = [6, 4, 1], block = 0, kunroll = 1>} {
  return
}

// CHECK-LABEL: func.func @fused_swapped_blocked
// CHECK-SAME: plan = #tisa.plan<"vpdpbusd.zmm", [n = [3], k = [4, 5, 6]], swapped, blocks = [1 : 64, 2 : 16]>
// CHECK-SAME: schedule = #tisa.schedule<unroll = [1, 1, 6, 1, 1, 1, 1], block = 240, lanes_outer, panel = 80, fuse, edge = 2, kunroll = 4, hold = 2, even_rows>
func.func @fused_swapped_blocked() attributes {
    plan = #tisa.plan<"vpdpbusd.zmm", [n = [3], k = [4, 5, 6]], blocks = [1 : 64, 2 : 16], swapped>,
    schedule = #tisa.schedule<unroll = [1, 1, 6, 1, 1, 1, 1], even_rows, hold = 2, kunroll = 4,
                              edge = 2, fuse, panel = 80, lanes_outer, block = 240>} {
  return
}

// CHECK-LABEL: func.func @segments_and_padding
// CHECK-SAME: loop = #tisa.loop<"a-b" = [7, 8]>
// CHECK-SAME: plan = #tisa.plan<"ummla.sve", [m = [0], n = padding, k = [2], seg = outer(0)]>
func.func @segments_and_padding() attributes {
    plan = #tisa.plan<"ummla.sve", [m = [0], n = padding, k = [2], seg = outer(0)]>,
    loop = #tisa.loop<"a-b" = [7, 8]>} {
  return
}
