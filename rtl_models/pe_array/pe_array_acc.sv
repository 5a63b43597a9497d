// pe_array_acc: the accumulator port of one array column, a read-add-write pipeline in front
// of the accumulator SRAM (the SRAM itself lives outside: in the harness).
//
// The SRAM contract: a synchronous read port (rd_addr sampled at a clock edge when rd_en is high,
// rd_data valid after that edge until the next one) and a write port (wr_addr/wr_data written at
// the clock edge that samples wr_en high). Partial sums leave the bottom PE in row order, so the
// address is a counter cleared at the start of a pass. The column delivers MACS chain sums per
// row (t[0] .. t[MACS-1], one per PE slot: pe_array_pe.sv); a pass of `macs` chains (1 in the
// f32 mode) adds those whose chain holds reduction steps (chain_en) one after the other, in
// ascending chain order, one add per stage:
//   edge e:          the bottom PE registers the chain sums t of row i (psum_valid_in rises);
//   edge e+1:        the SRAM reads C[i] (rd_en); stage 1 registers t and i;
//   edge e+1+s:      stage s+1 registers v_s (s = 1 .. macs-1), where v_1 = C[i] + t[0] and
//                    v_s = v_{s-1} + t[s-1] (or v_{s-1} when chain s-1 is empty);
//   edge e+1+macs:   the SRAM writes C[i] = v_macs (wr_en) -- kAccumulateLatency + (macs - 1).
// So C[i] = (((C[i] + t[0]) + t[1]) + ...): the K-tiles of isa/numerics/pe_gemm.h in ascending
// order. Consecutive rows use distinct addresses, so a read never meets a pending write of its
// own address. A disabled column (en low) neither reads nor writes, but its pipeline still runs:
// out_valid and out_addr (the row in the write stage) tell pe_array.sv when the last row has
// passed the last physical column.
module pe_array_acc #(
    parameter int AW   = 10,
    parameter int MACS = 1,
    parameter int CW   = $clog2(MACS + 1)  // width of macs; not meant to be overridden
) (
    input  logic            clk,
    input  logic            rst_n /*verilator public_flat_rd*/,
    input  logic            clear /*verilator public_flat_rd*/,
    input  logic            en /*verilator public_flat_rd*/,
    input  logic [  CW-1:0] macs /*verilator public_flat_rd*/,
    input  logic [MACS-1:0] chain_en /*verilator public_flat_rd*/,
    input  logic [32*MACS-1:0] psum_in /*verilator public_flat_rd*/,  // t[q]: bits 32q+31:32q
    input  logic            psum_valid_in /*verilator public_flat_rd*/,
    output logic            rd_en,
    output logic [  AW-1:0] rd_addr,
    input  logic [    31:0] rd_data /*verilator public_flat_rd*/,
    output logic            wr_en,
    output logic [  AW-1:0] wr_addr,
    output logic [    31:0] wr_data,
    output logic            out_valid,
    output logic [  AW-1:0] out_addr
);
  /*verilator no_inline_module*/  // and public_flat_rd inputs: see pe_array_pe.sv

  logic [AW-1:0] count;
  // Stage s (1 .. MACS): valid, row address, the row's chain sums, and (s > 1) the running sum.
  logic          s_valid [1:MACS];
  logic [AW-1:0] s_addr  [1:MACS];
  logic [32*MACS-1:0] s_t [1:MACS];
  /* verilator lint_off UNUSEDSIGNAL */
  logic [  31:0] s_v     [1:MACS];  // stage 1 reads C from the SRAM instead
  /* verilator lint_on UNUSEDSIGNAL */
  logic [  31:0] sum     [1:MACS];  // the running sum leaving stage s

  assign rd_en   = psum_valid_in & en;
  assign rd_addr = count;

  always_ff @(posedge clk) begin
    if (clear) count <= '0;
    else if (psum_valid_in) count <= count + 1'b1;
    s_addr[1] <= count;
    s_t[1]    <= psum_in;
    for (int s = 2; s <= MACS; s++) begin
      s_addr[s] <= s_addr[s-1];
      s_t[s]    <= s_t[s-1];
      s_v[s]    <= sum[s-1];
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      for (int s = 1; s <= MACS; s++) s_valid[s] <= 1'b0;
    end else begin
      s_valid[1] <= psum_valid_in;
      // A row leaves the pipeline at its write stage: none lingers in the stages beyond it,
      // where a later pass with more chains would write it again.
      for (int s = 2; s <= MACS; s++) s_valid[s] <= s_valid[s-1] && CW'(s - 1) < macs;
    end
  end

  // The stage adds, C + t (the accumulator's operand order; the add is commutative, NaNs are
  // canonical). Combinational, as in the hardware, but as calls of pe_arith_pkg::acc_add_fn
  // made only for a stage that holds a row of an enabled chain: stage 1 reads rd_data, an
  // input of the model, so Verilator evaluates this logic on every eval(), and as fp32_add
  // instances all MACS adds of every column ran each time, with or without a row (three of
  // them never used in f32). A stage without a row passes v_in through; it is never written
  // (wr_en) nor drained (drain_valid).
  import pe_arith_pkg::acc_add_fn;
  logic [31:0] v_in[1:MACS];
  always_comb begin
    for (int s = 1; s <= MACS; s++) begin
      v_in[s] = (s == 1) ? rd_data : s_v[s];
      if (s_valid[s] && chain_en[s-1]) sum[s] = acc_add_fn(v_in[s], s_t[s][32*(s-1)+:32]);
      else sum[s] = v_in[s];
    end
  end

  // The write stage is stage `macs` (1 .. MACS; the harness never configures 0).
  always_comb begin
    out_valid = s_valid[1];
    out_addr  = s_addr[1];
    wr_data   = sum[1];
    for (int s = 2; s <= MACS; s++)
      if (CW'(s) == macs) begin
        out_valid = s_valid[s];
        out_addr  = s_addr[s];
        wr_data   = sum[s];
      end
  end
  assign wr_en   = out_valid & en;
  assign wr_addr = out_addr;
endmodule
