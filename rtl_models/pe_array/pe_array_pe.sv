// pe_array_pe: one cell of the weight-stationary systolic array (pe_array.sv).
//
// MACS multiply-accumulate slots (MACS >= 1). In the f32 mode only slot 0 works; in the 16-bit
// modes (bf16, f16) slot j multiplies the j-th 16-bit element of the input word by its own
// stationary weight and runs its own partial-sum chain down the column (pe_array.sv: slot j of
// PE row r holds reduction step j*ROWS + r). Every clock edge the PE
//  * takes w_in[j] into slot j's weight register when w_shift[j] is high (each slot's weights
//    shift down the column on their own chain during the load phase; w_out feeds the PE below);
//  * registers x_in (from its left neighbour) into x_out, passing the input word to the right;
//  * registers psum_out[j] = en[j] && x_valid_in ? pe_mac(x_j * w[j], psum_in[j]) : psum_in[j],
//    passing the partial sums down. A disabled slot (its reduction step beyond K_t, or the
//    column beyond N_t) is a bypass: it forwards psum_in[j] untouched, so a stale weight (even
//    Inf) in it cannot change any result. So is every slot on an edge without an input (the
//    partial sum coming down is then not valid either: both valids leave row 0 together and
//    move one PE per edge), the operand isolation that keeps idle multipliers still.
// x_j is x_in[31:0] for slot 0 (an f32 value, or a 16-bit one in bits 15:0) and
// x_in[16j+15:16j] for slot j > 0. mode is pe_mac's (0 f32, 1 bf16, 2 f16), constant during a
// pass. The valid bits travel with the data (only the partial sum's valid reaches the
// accumulator); they are the only registers that need a reset.
module pe_array_pe #(
    parameter int MACS = 1,
    parameter int XW   = 32   // input word: 32 bits, or 16 x MACS when that is wider
) (
    input  logic          clk,
    input  logic          rst_n /*verilator public_flat_rd*/,
    input  logic [   1:0] mode /*verilator public_flat_rd*/,
    input  logic [MACS-1:0] w_shift /*verilator public_flat_rd*/,
    input  logic [32*MACS-1:0] w_in /*verilator public_flat_rd*/,
    output logic [32*MACS-1:0] w_out,
    input  logic [MACS-1:0] en /*verilator public_flat_rd*/,
    input  logic [XW-1:0] x_in /*verilator public_flat_rd*/,
    input  logic          x_valid_in /*verilator public_flat_rd*/,
    output logic [XW-1:0] x_out,
    output logic          x_valid_out,
    input  logic [32*MACS-1:0] psum_in /*verilator public_flat_rd*/,
    input  logic          psum_valid_in /*verilator public_flat_rd*/,
    output logic [32*MACS-1:0] psum_out,
    output logic          psum_valid_out
);
  // One C++ class for all ROWS x COLS instances instead of that many inlined copies: keeps the
  // verilated 32x32 array quick to compile. The inputs are also marked public_flat_rd: without
  // it Verilator substitutes each instance's input by the parent's driving signal, which makes
  // the functions of every instance different (1024 copies again, 60 MB of C++ for 32x32 and
  // 8 GB of Verilator memory for the traced SystemC build). Slot j's weight, partial sums and
  // their ports are the 32-bit fields [32j+31:32j] of packed vectors: unpacked array ports
  // make Verilator compute every instance's inputs in functions of their own again.
  /*verilator no_inline_module*/

  logic [32*MACS-1:0] w_q;

  import pe_arith_pkg::*;

  for (genvar j = 0; j < MACS; j++) begin : g_slot
    logic [31:0] x_j;
    if (j == 0) begin : g_x0
      assign x_j = x_in[31:0];
    end else begin : g_xj
      assign x_j = {16'd0, x_in[16*j+:16]};
    end

    // The multiply-add is a function call in the clocked block (pe_arith_pkg::pe_slot_fn):
    // the hardware's combinational MAC in front of psum_out, which Verilator then computes
    // only on the edges where the slot is enabled instead of for all MACS slots of all PEs on
    // every edge (a pe_mac instance is combinational logic, evaluated whatever en is).
    always_ff @(posedge clk) begin
      if (w_shift[j]) w_q[32*j+:32] <= w_in[32*j+:32];
      psum_out[32*j+:32] <=
          pe_slot_fn(en[j] & x_valid_in, mode, x_j, w_q[32*j+:32], psum_in[32*j+:32]);
    end
  end
  assign w_out = w_q;

  always_ff @(posedge clk) x_out <= x_in;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      x_valid_out    <= 1'b0;
      psum_valid_out <= 1'b0;
    end else begin
      x_valid_out    <= x_valid_in;
      psum_valid_out <= psum_valid_in;
    end
  end
endmodule
