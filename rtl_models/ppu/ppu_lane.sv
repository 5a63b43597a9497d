// ppu_lane: one PPU lane, combinational (the ppu top registers around it). Bit-exact with
// s2::numerics (isa/numerics/lane_ops.h) followed by numerics::store: inputs and scalars are read
// with DAZ, results are flushed (FTZ), every NaN result is 0x7FC00000.
//
// Operands per op (in0..in3 are the element streams, out0/out1 the results):
//   ADD/SUB/MUL/MAX/MIN  out0 = in0 op in1
//   RELU                 out0 = relu(in0)
//   RELU_BWD             out0 = relu_bwd(dy = in0, y = in1)
//   AXPBY                out0 = alpha*in0 + beta*in1            (three roundings)
//   SCALE_SHIFT          out0 = alpha*in0 + beta                (two roundings)
//   SGD                  in0 weight, in1 grad, in2 velocity; out0 weight, out1 velocity;
//                        a zero weight_decay / momentum skips its term (numerics::sgd_step)
//   EPILOGUE             in0 acc, in1 bias, in2 residual, in3 gate; stages = {gate, relu,
//                        residual, bias}, applied in the order bias, residual, relu, gate;
//                        out0 and out1 both the result (out0 is written back in y's type,
//                        out1 is the f32 value the channel statistics take)
//   CAST                 out0 = in0 (read with DAZ, NaN canonical); the conversion is the
//                        ppu top's: its load widens a 16-bit in0, its store rounds out0
// Datapath: three multipliers and three adders (fp32_mul / fp32_add from rtl_models/pe), shared
// between the ops by operand multiplexers; SGD is the one op that uses all six, chained.
module ppu_lane
  import ppu_pkg::*;
(
    input  ppu_op_e     op,
    input  logic [31:0] alpha,
    input  logic [31:0] beta,
    input  logic [31:0] lr,
    input  logic [31:0] momentum,
    input  logic [31:0] weight_decay,
    input  logic [ 3:0] stages,
    input  logic [31:0] in0,
    input  logic [31:0] in1,
    input  logic [31:0] in2,
    input  logic [31:0] in3,
    output logic [31:0] out0,
    output logic [31:0] out1
);
  localparam logic [31:0] SignBit = 32'h8000_0000;

  logic [31:0] m0_a, m0_b, m0_y, m1_a, m1_b, m1_y, m2_a, m2_b, m2_y;
  logic [31:0] a0_a, a0_b, a0_y, a1_a, a1_b, a1_y, a2_a, a2_b, a2_y;

  fp32_mul u_m0 (.a(m0_a), .b(m0_b), .y(m0_y));
  fp32_mul u_m1 (.a(m1_a), .b(m1_b), .y(m1_y));
  fp32_mul u_m2 (.a(m2_a), .b(m2_b), .y(m2_y));
  fp32_add u_a0 (.a(a0_a), .b(a0_b), .y(a0_y));
  fp32_add u_a1 (.a(a1_a), .b(a1_b), .y(a1_y));
  fp32_add u_a2 (.a(a2_a), .b(a2_b), .y(a2_y));

  // A loaded scalar is zero exactly when its exponent field is (zero or subnormal under DAZ);
  // a NaN coefficient is not zero, so its term is kept (as `!= 0.0f` in lane_ops.h).
  logic decay_on, momentum_on;
  assign decay_on    = weight_decay[30:23] != 8'd0;
  assign momentum_on = momentum[30:23] != 8'd0;

  // SGD: g1 = grad (+ wd*w), g2 = v' = m*v + g1 (with momentum), w' = w - lr*g2. Raw (not yet
  // flushed) values may flow into a unit: every unit applies DAZ to its inputs.
  logic [31:0] sgd_g1, sgd_g2;
  assign sgd_g1 = decay_on ? a0_y : in1;
  assign sgd_g2 = momentum_on ? a1_y : sgd_g1;

  // Epilogue: e_bias, e_res, e_relu, e_gate after each (possibly skipped) stage.
  logic [31:0] e_bias, e_res, e_relu, e_gate;
  assign e_bias = stages[0] ? a0_y : in0;
  assign e_res  = stages[1] ? a1_y : e_bias;
  assign e_relu = (stages[2] && !gt_zero(e_res)) ? 32'd0 : e_res;
  assign e_gate = (stages[3] && !gt_zero(in3)) ? 32'd0 : e_relu;

  always_comb begin
    m0_a = in0;
    m0_b = in1;
    a0_a = in0;
    a0_b = in1;
    m1_a = beta;
    m1_b = in1;
    a1_a = e_bias;
    a1_b = in2;
    m2_a = lr;
    m2_b = sgd_g2;
    a2_a = in0;
    a2_b = m2_y ^ SignBit;
    unique case (op)
      OP_SUB: a0_b = in1 ^ SignBit;  // a - b == a + (-b), signed zeros and NaNs included
      OP_AXPBY: begin
        m0_a = alpha;
        m0_b = in0;
        a0_a = m0_y;
        a0_b = m1_y;
      end
      OP_SCALE_SHIFT: begin
        m0_a = alpha;
        m0_b = in0;
        a0_a = m0_y;
        a0_b = beta;
      end
      OP_SGD: begin
        m0_a = weight_decay;
        m0_b = in0;
        a0_a = in1;
        a0_b = m0_y;
        m1_a = momentum;
        m1_b = in2;
        a1_a = m1_y;
        a1_b = sgd_g1;
      end
      default: ;
    endcase
  end

  always_comb begin
    out1 = 32'd0;
    unique case (op)
      OP_ADD, OP_SUB, OP_AXPBY, OP_SCALE_SHIFT: out0 = a0_y;
      OP_MUL:      out0 = m0_y;
      OP_MAX:      out0 = canon_daz((is_nan(in0[30:0]) || gt(in0, in1)) ? in0 : in1);
      OP_MIN:      out0 = canon_daz((is_nan(in0[30:0]) || gt(in1, in0)) ? in0 : in1);
      OP_RELU:     out0 = gt_zero(in0) ? in0 : 32'd0;
      OP_RELU_BWD: out0 = gt_zero(in1) ? canon_daz(in0) : 32'd0;
      OP_SGD: begin
        out0 = a2_y;
        out1 = momentum_on ? a1_y : canon_daz(in2);  // velocity untouched without momentum
      end
      OP_EPILOGUE: begin
        out0 = canon_daz(e_gate);
        out1 = canon_daz(e_gate);  // the same result, stored in its own type (stats' tap)
      end
      OP_CAST:     out0 = canon_daz(in0);
      default:     out0 = 32'd0;
    endcase
  end
endmodule
