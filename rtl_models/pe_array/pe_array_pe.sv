// pe_array_pe: one cell of the weight-stationary systolic array (pe_array.sv).
//
// Holds one stationary weight. Every clock edge it
//  * takes w_in into its weight register when w_shift is high (weights shift down a column
//    during the load phase; w_out feeds the PE below);
//  * registers x_in (from its left neighbour) into x_out, passing the input row to the right;
//  * registers psum_out = en ? pe_mac(x_in * w, psum_in) : psum_in, passing the partial sum
//    down. A disabled PE (its row beyond K_t or its column beyond N_t) is a bypass: it forwards
//    psum_in untouched, so a stale weight (even Inf) in it cannot change any result.
// The valid bits travel with the data (only the partial sum's valid reaches the accumulator);
// they are the only registers that need a reset.
module pe_array_pe (
    input  logic        clk,
    input  logic        rst_n /*verilator public_flat_rd*/,
    input  logic        w_shift /*verilator public_flat_rd*/,
    input  logic [31:0] w_in /*verilator public_flat_rd*/,
    output logic [31:0] w_out,
    input  logic        en /*verilator public_flat_rd*/,
    input  logic [31:0] x_in /*verilator public_flat_rd*/,
    input  logic        x_valid_in /*verilator public_flat_rd*/,
    output logic [31:0] x_out,
    output logic        x_valid_out,
    input  logic [31:0] psum_in /*verilator public_flat_rd*/,
    input  logic        psum_valid_in /*verilator public_flat_rd*/,
    output logic [31:0] psum_out,
    output logic        psum_valid_out
);
  // One C++ class for all ROWS x COLS instances instead of that many inlined copies: keeps the
  // verilated 32x32 array quick to compile. The inputs are also marked public_flat_rd: without
  // it Verilator substitutes each instance's input by the parent's driving signal, which makes
  // the functions of every instance different (1024 copies again, 60 MB of C++ for 32x32 and
  // 8 GB of Verilator memory for the traced SystemC build).
  /*verilator no_inline_module*/

  logic [31:0] w_q;
  // Waveforms show the PE's registers, not the arithmetic inside pe_mac (tracing every gate
  // of 1024 multipliers makes the SystemC build's trace code gigabytes to compile).
  /*verilator tracing_off*/
  logic [31:0] mac;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] prod_unused;  // the multiplier alone is checked by the pe_mac regression
  /* verilator lint_on UNUSEDSIGNAL */

  pe_mac u_mac (
      .a(x_in),
      .b(w_q),
      .acc_in(psum_in),
      .prod(prod_unused),
      .acc_out(mac)
  );

  always_ff @(posedge clk) begin
    if (w_shift) w_q <= w_in;
    x_out    <= x_in;
    psum_out <= en ? mac : psum_in;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      x_valid_out    <= 1'b0;
      psum_valid_out <= 1'b0;
    end else begin
      x_valid_out    <= x_valid_in;
      psum_valid_out <= psum_valid_in;
    end
  end

  assign w_out = w_q;
endmodule
