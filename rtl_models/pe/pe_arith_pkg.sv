// pe_arith_pkg: the S2Train PE arithmetic as functions (DESIGN.md section 6). The modules
// fp16_widen, fp32_mul, fp32_add and pe_mac wrap them one to one (their headers give each
// contract); the PE array calls pe_slot_fn inside its clocked block, so Verilator evaluates a
// slot's multiply-add only on the edges where the slot works (pe_array_pe.sv): as a module
// instance it is combinational logic, evaluated for every slot of every PE on every edge.

package pe_arith_pkg;

  localparam logic [31:0] CanonicalNaN = 32'h7FC0_0000;

  // fp16_widen.sv: a multiplicand as the fp32 multiplier reads it (0 f32, 1 bf16, 2 f16).
  function automatic logic [31:0] fp16_widen_fn(input logic [1:0] mode, input logic [31:0] x);
    logic s;
    logic [4:0] e;
    logic [9:0] f;
    logic [3:0] lead;
    logic [31:0] subnormal, f16;
    {s, e, f} = x[15:0];
    lead = f[9] ? 4'd9 : f[8] ? 4'd8 : f[7] ? 4'd7 : f[6] ? 4'd6 : f[5] ? 4'd5 :
           f[4] ? 4'd4 : f[3] ? 4'd3 : f[2] ? 4'd2 : f[1] ? 4'd1 : 4'd0;
    subnormal = {s, 8'(lead) + 8'd103, 23'({f, 13'd0} << (5'd10 - 5'(lead)))};
    f16 = (e == 5'd31) ? ((f == 10'd0) ? {s, 8'hFF, 23'd0} : CanonicalNaN) :
          (e != 5'd0) ? {s, 8'(e) + 8'd112, f, 13'd0} :
          (f == 10'd0) ? {s, 31'd0} : subnormal;
    return (mode == 2'd1) ? {x[15:0], 16'd0} : (mode == 2'd2) ? f16 : x;
  endfunction

  // fp32_mul.sv: binary32 multiply, round to nearest even, DAZ, FTZ after rounding.
  function automatic logic [31:0] fp32_mul_fn(input logic [31:0] a, input logic [31:0] b);
    logic sa, sb, sy;
    logic [7:0] ea, eb;
    logic [22:0] fa, fb;
    logic a_zero, b_zero, a_inf, b_inf, a_nan, b_nan;
    logic [47:0] prod;
    logic [23:0] sig;
    logic guard, sticky;
    logic [9:0] e_sum, e_out;
    logic round_up, carry;
    logic [22:0] frac_r;
    {sa, ea, fa} = a;
    {sb, eb, fb} = b;
    sy = sa ^ sb;
    a_zero = (ea == 8'd0);  // zero or subnormal (flushed)
    b_zero = (eb == 8'd0);
    a_inf = (ea == 8'hFF) && (fa == 23'd0);
    b_inf = (eb == 8'hFF) && (fb == 23'd0);
    a_nan = (ea == 8'hFF) && (fa != 23'd0);
    b_nan = (eb == 8'hFF) && (fb != 23'd0);
    prod = {24'd0, 1'b1, fa} * {24'd0, 1'b1, fb};
    if (prod[47]) begin
      sig = prod[47:24];
      guard = prod[23];
      sticky = |prod[22:0];
    end else begin
      sig = prod[46:23];
      guard = prod[22];
      sticky = |prod[21:0];
    end
    e_sum = {2'b00, ea} + {2'b00, eb} + {9'd0, prod[47]};
    round_up = guard & (sticky | sig[0]);
    {carry, frac_r} = {1'b0, sig[22:0]} + {23'd0, round_up};
    e_out = e_sum + {9'd0, carry} - 10'd127;  // only meaningful when e_sum >= 128
    if (a_nan || b_nan || (a_inf && b_zero) || (b_inf && a_zero)) return CanonicalNaN;
    if (a_inf || b_inf) return {sy, 8'hFF, 23'd0};
    if (a_zero || b_zero) return {sy, 31'd0};
    if (e_sum >= 10'd128) begin  // normal before rounding
      if (e_out >= 10'd255) return {sy, 8'hFF, 23'd0};  // overflow
      return {sy, e_out[7:0], frac_r};
    end
    if (e_sum == 10'd127 && sig == 24'hFF_FFFF) return {sy, 8'd1, 23'd0};  // rounds up to 2^-126
    return {sy, 31'd0};  // subnormal after rounding: flushed
  endfunction

  // fp32_add.sv: binary32 add, round to nearest even, DAZ, FTZ.
  function automatic logic [31:0] fp32_add_fn(input logic [31:0] a, input logic [31:0] b);
    logic sa, sb;
    logic [7:0] ea, eb;
    logic [22:0] fa, fb;
    logic a_zero, b_zero, a_inf, b_inf, a_nan, b_nan;
    logic swap, s_big, s_small;
    logic [7:0] e_big, e_small, shift;
    logic [22:0] f_big, f_small;
    logic [26:0] m_big, m_small_full, m_small;
    logic subtract;
    logic [27:0] sum;
    logic [4:0] lzc;
    logic [31:0] lz_v;
    logic [26:0] norm;
    logic [9:0] e_norm, e_out;
    logic round_up, carry;
    logic [22:0] frac_r;
    {sa, ea, fa} = a;
    {sb, eb, fb} = b;
    a_zero = (ea == 8'd0);  // zero or subnormal (flushed)
    b_zero = (eb == 8'd0);
    a_inf = (ea == 8'hFF) && (fa == 23'd0);
    b_inf = (eb == 8'hFF) && (fb == 23'd0);
    a_nan = (ea == 8'hFF) && (fa != 23'd0);
    b_nan = (eb == 8'hFF) && (fb != 23'd0);
    swap = {eb, fb} > {ea, fa};
    {s_big, e_big, f_big} = swap ? b : a;
    {s_small, e_small, f_small} = swap ? a : b;
    shift = e_big - e_small;
    m_big = {1'b1, f_big, 3'b000};
    m_small_full = {1'b1, f_small, 3'b000};
    if (shift >= 8'd27) m_small = 27'd1;  // only sticky survives (the significand is nonzero)
    else
      m_small = (m_small_full >> shift) | {26'd0, |(m_small_full & ~(27'h7FF_FFFF << shift))};
    subtract = s_big ^ s_small;
    sum = subtract ? {1'b0, m_big} - {1'b0, m_small} : {1'b0, m_big} + {1'b0, m_small};
    // Leading zeros of sum[26:0] (27 when it is zero: the sentinel bit below it), as a
    // five-level tree: count the zeros of the window's upper 16, 8, 4, 2, 1 bits when they are
    // all zero, and shift them out.
    lz_v = {sum[26:0], 5'b10000};
    lzc = 5'd0;
    for (int w = 16; w >= 1; w = w / 2)
      if ((lz_v & ~(32'hFFFF_FFFF >> w)) == 32'd0) begin
        lzc = lzc + 5'(w);
        lz_v = lz_v << w;
      end
    if (sum[27]) begin
      norm = {sum[27:2], sum[1] | sum[0]};
      e_norm = {2'b00, e_big} + 10'd33;
    end else begin
      norm = sum[26:0] << lzc;
      e_norm = {2'b00, e_big} + 10'd32 - {5'd0, lzc};
    end
    round_up = norm[2] & (norm[1] | norm[0] | norm[3]);
    {carry, frac_r} = {1'b0, norm[25:3]} + {23'd0, round_up};
    e_out = e_norm + {9'd0, carry} - 10'd32;  // only meaningful when e_norm >= 33
    if (a_nan || b_nan || (a_inf && b_inf && (sa != sb))) return CanonicalNaN;
    if (a_inf) return {sa, 8'hFF, 23'd0};
    if (b_inf) return {sb, 8'hFF, 23'd0};
    if (a_zero && b_zero) return {sa & sb, 31'd0};
    if (a_zero) return b;
    if (b_zero) return a;
    if (sum == 28'd0) return 32'd0;  // exact cancellation is +0 under round-to-nearest
    if (e_norm <= 10'd32 || norm[26] == 1'b0) return {s_big, 31'd0};  // subnormal: flushed
    if (e_out >= 10'd255) return {s_big, 8'hFF, 23'd0};  // overflow
    return {s_big, e_out[7:0], frac_r};
  endfunction

  // pe_mac.sv: fp32_add(acc, fp32_mul(widen(a), widen(b))), two roundings.
  function automatic logic [31:0] pe_mac_fn(input logic [1:0] mode, input logic [31:0] a,
                                            input logic [31:0] b, input logic [31:0] acc);
    return fp32_add_fn(acc, fp32_mul_fn(fp16_widen_fn(mode, a), fp16_widen_fn(mode, b)));
  endfunction

  // The multiply-add of one enabled slot: a C++ function of its own in the verilated model
  // (no_inline_task), shared by every PE. Inlined, Verilator gives each PE instance its own
  // copy of the arithmetic and hoists it out of the enable's branch.
  function automatic logic [31:0] pe_slot_mac_fn(input logic [1:0] mode, input logic [31:0] a,
                                                 input logic [31:0] b, input logic [31:0] acc);
    /*verilator no_inline_task*/
    return pe_mac_fn(mode, a, b, acc);
  endfunction

  // One add of the accumulator's read-add-write pipeline (pe_array_acc.sv): C + t. A C++
  // function of its own, called only for a stage that holds a row of an enabled chain.
  function automatic logic [31:0] acc_add_fn(input logic [31:0] c, input logic [31:0] t);
    /*verilator no_inline_task*/
    return fp32_add_fn(c, t);
  endfunction

  // One slot of a PE array cell on a clock edge (pe_array_pe.sv): the multiply-add when the
  // slot is enabled, else the partial sum passed through. Inlined into each PE, so a disabled
  // slot (three of four in fp32) costs a branch, not a call: the call's register saves were
  // the largest cost of the replay when this function held the arithmetic itself.
  function automatic logic [31:0] pe_slot_fn(input logic en, input logic [1:0] mode,
                                             input logic [31:0] a, input logic [31:0] b,
                                             input logic [31:0] acc);
    if (!en) return acc;
    return pe_slot_mac_fn(mode, a, b, acc);
  endfunction

endpackage
