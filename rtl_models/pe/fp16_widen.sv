// fp16_widen: a PE multiplicand as the fp32 multiplier reads it (DESIGN.md section 6,
// isa/numerics/low_precision.h), per multiply mode:
//  * mode 0 (f32): x unchanged;
//  * mode 1 (bf16): x[15:0] becomes the top half of an fp32. A bf16 subnormal becomes an fp32
//    subnormal, which fp32_mul reads as zero of its sign (DAZ), as the C++ model does;
//  * mode 2 (f16): x[15:0] is an IEEE binary16 value, widened exactly: normals rebias their
//    exponent (15 -> 127), subnormals (f * 2^-24) are normalised (every fp16 subnormal is an
//    fp32 normal, so loss-scaled gradients keep their bits), Inf stays Inf and every NaN
//    becomes the canonical fp32 NaN 0x7FC00000.
// Mode 3 is not a mode (the harnesses never drive it); it reads as f32.
// Purely combinational.
module fp16_widen (
    input  logic [ 1:0] mode,
    input  logic [31:0] x,
    output logic [31:0] y
);
  localparam logic [1:0] ModeBf16 = 2'd1;
  localparam logic [1:0] ModeF16 = 2'd2;

  logic       s;
  logic [4:0] e;
  logic [9:0] f;
  assign {s, e, f} = x[15:0];

  // Position of the leading one of a subnormal's fraction (0 .. 9). Continuous assignments
  // only: an always_comb block here makes Verilator evaluate every PE instance's multiplier in
  // a function of its own (hundreds of MB of C++ for the 32x32 array).
  logic [3:0] lead;
  assign lead = f[9] ? 4'd9 : f[8] ? 4'd8 : f[7] ? 4'd7 : f[6] ? 4'd6 : f[5] ? 4'd5 :
                f[4] ? 4'd4 : f[3] ? 4'd3 : f[2] ? 4'd2 : f[1] ? 4'd1 : 4'd0;

  // f * 2^-24 = 1.(bits below the leading one) * 2^(lead - 24): exponent field lead + 103.
  logic [31:0] subnormal;
  assign subnormal = {s, 8'(lead) + 8'd103, 23'({f, 13'd0} << (5'd10 - 5'(lead)))};

  logic [31:0] f16;
  assign f16 = (e == 5'd31) ? ((f == 10'd0) ? {s, 8'hFF, 23'd0} : 32'h7FC0_0000) :
               (e != 5'd0) ? {s, 8'(e) + 8'd112, f, 13'd0} :
               (f == 10'd0) ? {s, 31'd0} : subnormal;

  assign y = (mode == ModeBf16) ? {x[15:0], 16'd0} : (mode == ModeF16) ? f16 : x;
endmodule
