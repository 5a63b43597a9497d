// pe_array_acc: the accumulator port of one array column, a read-add-write pipeline in front
// of the accumulator SRAM (the SRAM itself lives outside: in the harness).
//
// The SRAM contract: a synchronous read port (rd_addr sampled at a clock edge when rd_en is high,
// rd_data valid after that edge until the next one) and a write port (wr_addr/wr_data written at
// the clock edge that samples wr_en high). Partial sums leave the bottom PE in row order, so the
// address is a counter cleared at the start of a pass:
//   edge e:   the bottom PE registers the partial sum t of row i (psum_valid_in rises);
//   edge e+1: the SRAM reads C[i] (rd_en), this stage registers t and i;
//   edge e+2: the SRAM writes C[i] = fp32_add(C[i], t) (wr_en) -- kAccumulateLatency = 2.
// Consecutive rows use distinct addresses, so the read of row i+1 never meets the write of row i.
// A disabled column (en low) neither reads nor writes, but its pipeline still runs: s1_valid and
// s1_addr tell pe_array.sv when the last row has passed the last physical column.
module pe_array_acc #(
    parameter int AW = 10
) (
    input  logic          clk,
    input  logic          rst_n /*verilator public_flat_rd*/,
    input  logic          clear /*verilator public_flat_rd*/,
    input  logic          en /*verilator public_flat_rd*/,
    input  logic [  31:0] psum_in /*verilator public_flat_rd*/,
    input  logic          psum_valid_in /*verilator public_flat_rd*/,
    output logic          rd_en,
    output logic [AW-1:0] rd_addr,
    input  logic [  31:0] rd_data /*verilator public_flat_rd*/,
    output logic          wr_en,
    output logic [AW-1:0] wr_addr,
    output logic [  31:0] wr_data,
    output logic          s1_valid,
    output logic [AW-1:0] s1_addr
);
  /*verilator no_inline_module*/  // and public_flat_rd inputs: see pe_array_pe.sv

  logic [AW-1:0] count;
  logic [  31:0] s1_psum;

  assign rd_en   = psum_valid_in & en;
  assign rd_addr = count;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      s1_valid <= 1'b0;
    end else begin
      s1_valid <= psum_valid_in;
    end
    if (clear) count <= '0;
    else if (psum_valid_in) count <= count + 1'b1;
    s1_psum <= psum_in;
    s1_addr <= count;
  end

  /*verilator tracing_off*/  // the adder's internals (see pe_array_pe.sv)
  // C[i] + t: the accumulator's operand order (the add is commutative, NaNs are canonical).
  fp32_add u_add (
      .a(rd_data),
      .b(s1_psum),
      .y(wr_data)
  );
  assign wr_en   = s1_valid & en;
  assign wr_addr = s1_addr;
endmodule
