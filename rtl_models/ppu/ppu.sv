// ppu: the S2Train PPU, LANES vector lanes streaming one pass of `count` elements
// (simulator/timing/ppu_model.h). Bit-exact with s2::numerics; the lanes are ppu_lane.sv.
//
// A pass. On the rising edge that samples `start` (edge 1; ignored while a pass is in progress,
// i.e. from its edge 1 to the edge that raises its `done`) the PPU latches op, count, latency,
// the scalars and the epilogue stages, and captures the first beat, which the driver presents
// together with start. A beat is `in_n` elements on lanes 0..in_n-1 of in0..in3 (1 <= in_n <=
// LANES, and no more than the pass has left; lanes past in_n are ignored). The PPU has no
// width of its own: the driver's beats are its throughput, `width` = lanes * throughput
// elements per cycle (ppu_rtl.h). After beat 0, `in_ready` is high until the pass's `count`
// elements have all been captured; the driver presents a beat by raising `in_valid` with it,
// and an edge that samples in_ready and in_valid both high captures it. A driver that has its
// data at once presents full beats (in_n = width, the last one short) in every cycle: beat k
// is captured into the input register on edge k+1 (k = 0..B-1, B = ceil(count / width)). A
// driver streaming data as it is produced (the PE array's drain: each output row of N_t
// elements as ceil(N_t / width) beats, pe_array.sv) lowers in_valid while it has none; the
// pipeline keeps running, so results in flight still come out. The lanes compute on the input
// register; their results then travel `latency` pipeline stages, the last of which is the
// output register: a beat captured on edge e has its results in out0/out1 (lanes
// 0..out_count-1, with out_valid) after edge e+latency. `done` is high after the edge that
// writes the pass's last beat. So a pass whose beats come every cycle takes
//     latency + ceil(count / width)   cycles,
// counted as rising edges from the one that samples start up to and including the one that
// writes the last result (the PE array counts its passes the same way, so a unit can run them
// back to back), and a streamed one ends `latency` edges after the edge that captures its last
// beat; the count is the sum of the input beats and the pipeline depth, not a counter of the
// formula.
//
// Element types: in_types gives each input stream's type (bits 2k+1:2k for in<k>) and out_types
// each output's (bits 1:0 out0, 3:2 out1): 0 f32, 1 bf16, 2 f16 (fp16_widen's modes). A 16-bit
// element is the low half of its 32-bit word. The load widens a 16-bit input exactly
// (fp16_widen) between the input register and the lanes; the store rounds a result to its
// output's type (fp16_round) before stage 1, the upper half of a 16-bit result word zero. Both
// are combinational, so the types change no cycle count.
//
// Pipeline: stage 1 is the lane result register; stages 2..latency are a delay line (a RAM of
// 2^ceil(log2 MAX_LATENCY) entries written every cycle, read latency-1 entries behind the write
// pointer, the output register being stage `latency`); valid/last travel in a shift register
// tapped at the same depth. Contract on the inputs (the harness checks them): 1 <= count,
// 1 <= in_n <= LANES, 1 <= latency <= MAX_LATENCY.
module ppu
  import ppu_pkg::*;
#(
    parameter int LANES = 32,
    parameter int MAX_LATENCY = 64,
    localparam int CW = $clog2(LANES + 1),       // width of a lane count (0..LANES)
    localparam int LW = $clog2(MAX_LATENCY + 1)  // width of a latency (1..MAX_LATENCY)
) (
    input  logic                   clk,
    input  logic                   rst_n,          // synchronous, active low
    input  logic                   start,
    input  logic [            3:0] op,             // ppu_op_e
    input  logic [           31:0] count,          // elements of the pass, >= 1
    input  logic [         LW-1:0] latency,        // pipeline stages, 1..MAX_LATENCY
    input  logic [           31:0] alpha,
    input  logic [           31:0] beta,
    input  logic [           31:0] lr,
    input  logic [           31:0] momentum,
    input  logic [           31:0] weight_decay,
    input  logic [            3:0] stages,         // epilogue {gate, relu, residual, bias}
    input  logic [            7:0] in_types,       // per input stream, 2 bits each
    input  logic [            3:0] out_types,      // per output stream, 2 bits each
    output logic                   in_ready,
    input  logic                   in_valid,       // a beat after beat 0 is presented
    input  logic [         CW-1:0] in_n,           // elements of the presented beat
    input  logic [LANES-1:0][31:0] in0,
    input  logic [LANES-1:0][31:0] in1,
    input  logic [LANES-1:0][31:0] in2,
    input  logic [LANES-1:0][31:0] in3,
    output logic                   out_valid,
    output logic [         CW-1:0] out_count,      // valid lanes of out0/out1
    output logic [LANES-1:0][31:0] out0,
    output logic [LANES-1:0][31:0] out1,
    output logic                   done
);
  localparam int AW = $clog2(MAX_LATENCY);
  localparam int Depth = 1 << AW;  // >= MAX_LATENCY > latency - 1

  // ---- pass configuration, latched with start ----
  ppu_op_e op_q;
  logic [LW-1:0] latency_q;
  logic [31:0] alpha_q, beta_q, lr_q, momentum_q, weight_decay_q;
  logic [3:0] stages_q;
  logic [7:0] in_types_q;
  logic [3:0] out_types_q;

  // ---- input sequencer: elements not yet captured ----
  logic busy, accept, finish;  // a pass is in progress; start accepted; last result written
  assign accept = start && !busy;
  logic [31:0] remaining;  // after beat 0: elements of the pass not yet captured
  // This edge's beat: beat 0 with start, a later one while remaining != 0 and the driver
  // presents it; never both, as remaining != 0 only while busy. A beat never takes more than
  // the pass has left.
  logic take;
  logic [31:0] left, n_ext;
  logic [CW-1:0] beat_n;
  assign in_ready = remaining != 32'd0;
  assign take = accept || (in_ready && in_valid);
  assign left = accept ? count : remaining;
  assign n_ext = {{(32 - CW) {1'b0}}, in_n};
  assign beat_n = left < n_ext ? left[CW-1:0] : in_n;

  // ---- input register (beat k captured on edge k+1) ----
  logic in_valid_q, in_last_q;
  logic [CW-1:0] in_n_q;
  logic [LANES-1:0][31:0] in0_q, in1_q, in2_q, in3_q;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      busy <= 1'b0;
      remaining <= 32'd0;
      in_valid_q <= 1'b0;
      in_last_q <= 1'b0;
    end else begin
      if (accept) busy <= 1'b1;
      else if (finish) busy <= 1'b0;
      if (take) begin
        remaining <= left - {{(32 - CW) {1'b0}}, beat_n};
        in_valid_q <= 1'b1;
        in_last_q <= left <= n_ext;
      end else begin
        in_valid_q <= 1'b0;
        in_last_q <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (accept) begin
      op_q <= ppu_op_e'(op);
      latency_q <= latency;
      alpha_q <= alpha;
      beta_q <= beta;
      lr_q <= lr;
      momentum_q <= momentum;
      weight_decay_q <= weight_decay;
      stages_q <= stages;
      in_types_q <= in_types;
      out_types_q <= out_types;
    end
    if (take) begin
      in_n_q <= beat_n;
      in0_q <= in0;
      in1_q <= in1;
      in2_q <= in2;
      in3_q <= in3;
    end
  end

  // ---- the lanes, with the loads' widening and the stores' rounding ----
  logic [LANES-1:0][31:0] x0, x1, x2, x3, r0, r1, y0, y1;
  for (genvar i = 0; i < LANES; i++) begin : g_lane
    fp16_widen u_w0 (.mode(in_types_q[1:0]), .x(in0_q[i]), .y(x0[i]));
    fp16_widen u_w1 (.mode(in_types_q[3:2]), .x(in1_q[i]), .y(x1[i]));
    fp16_widen u_w2 (.mode(in_types_q[5:4]), .x(in2_q[i]), .y(x2[i]));
    fp16_widen u_w3 (.mode(in_types_q[7:6]), .x(in3_q[i]), .y(x3[i]));
    fp16_round u_r0 (.mode(out_types_q[1:0]), .x(r0[i]), .y(y0[i]));
    fp16_round u_r1 (.mode(out_types_q[3:2]), .x(r1[i]), .y(y1[i]));
    ppu_lane u_lane (
        .op(op_q),
        .alpha(alpha_q),
        .beta(beta_q),
        .lr(lr_q),
        .momentum(momentum_q),
        .weight_decay(weight_decay_q),
        .stages(stages_q),
        .in0(x0[i]),
        .in1(x1[i]),
        .in2(x2[i]),
        .in3(x3[i]),
        .out0(r0[i]),
        .out1(r1[i])
    );
  end

  // ---- pipeline stages 1..latency ----
  // Stage 1 is written from the lanes on every edge; line[] holds stages 1..latency-1 in
  // circular order, so the entry latency-1 behind the write pointer is stage latency-1, and the
  // output register (stage latency) takes it. latency == 1: the output register is stage 1.
  logic [AW-1:0] wp, rp;
  logic [CW-1:0] n_line[Depth];
  logic [LANES-1:0][31:0] y0_line[Depth];
  logic [LANES-1:0][31:0] y1_line[Depth];
  logic [MAX_LATENCY-1:0] valid_sr, last_sr;  // [j]: stage j+1
  logic [AW-1:0] tap;
  assign rp = wp - AW'(latency_q - LW'(1));
  assign tap = AW'(latency_q - LW'(2));  // used only when latency >= 2

  always_ff @(posedge clk) begin
    y0_line[wp] <= y0;
    y1_line[wp] <= y1;
    n_line[wp] <= in_n_q;
    if (latency_q == LW'(1)) begin
      out0 <= y0;
      out1 <= y1;
      out_count <= in_n_q;
    end else begin
      out0 <= y0_line[rp];
      out1 <= y1_line[rp];
      out_count <= n_line[rp];
    end
  end

  // The last beat leaves stage latency-1 (enters the output register) on this edge.
  assign finish = latency_q == LW'(1) ? in_valid_q && in_last_q : last_sr[tap];

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      wp <= '0;
      valid_sr <= '0;
      last_sr <= '0;
      out_valid <= 1'b0;
      done <= 1'b0;
    end else begin
      wp <= wp + AW'(1);
      if (accept) begin
        // Every beat of the previous pass has left through its tap; bits still shifting past
        // it must not reach the new pass's (possibly deeper) tap.
        valid_sr <= '0;
        last_sr <= '0;
      end else begin
        valid_sr <= {valid_sr[MAX_LATENCY-2:0], in_valid_q};
        last_sr <= {last_sr[MAX_LATENCY-2:0], in_valid_q && in_last_q};
      end
      out_valid <= latency_q == LW'(1) ? in_valid_q : valid_sr[tap];
      done <= finish;
    end
  end
endmodule
