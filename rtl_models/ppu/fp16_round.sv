// fp16_round: a PPU result as it is stored in a 16-bit tensor (DESIGN.md section 6,
// isa/numerics/low_precision.h: bf16_from_f32, f16_from_f32), per store type:
//  * mode 0 (f32): x unchanged;
//  * mode 1 (bf16): rounded to nearest, ties to even, on the 16 bits dropped (a carry steps the
//    exponent, up to infinity); every NaN becomes 0x7FC0;
//  * mode 2 (f16): |x| >= 65520 becomes infinity of x's sign; normals rebias their exponent
//    (127 -> 15) and round the 13 bits dropped; below 2^-14 the value rounds gradually into
//    fp16's subnormals (units of 2^-24; below half the smallest, to zero; exactly half ties
//    to even); every NaN becomes 0x7E00.
// A 16-bit result is y[15:0], with y[31:16] zero. Mode 3 is not a mode; it reads as f32.
// Purely combinational, continuous assignments only.
module fp16_round (
    input  logic [ 1:0] mode,
    input  logic [31:0] x,
    output logic [31:0] y
);
  localparam logic [1:0] ModeBf16 = 2'd1;
  localparam logic [1:0] ModeF16 = 2'd2;

  logic nan;
  assign nan = (x[30:23] == 8'hFF) && (x[22:0] != 23'd0);

  // bf16: x + 0x7FFF + the kept LSB, top half (the low half is dropped).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] bf16_sum;
  assign bf16_sum = x + 32'h0000_7FFF + {31'd0, x[16]};

  // f16 normal: rebias (exponent field - 112) and round the 13 bits dropped.
  logic [30:0] mag, rebiased, rounded;  // rounded: bits 27:13 are the result
  /* verilator lint_on UNUSEDSIGNAL */
  assign mag = x[30:0];
  assign rebiased = mag - {8'd112, 23'd0};
  assign rounded = rebiased + 31'h0FFF + {30'd0, rebiased[13]};

  // f16 subnormal: the 24-bit significand shifted right by 126 - exponent field (14 .. 24 when
  // the result is not zero), rounded on the bits shifted out.
  logic [ 7:0] shift;
  logic [23:0] significand, kept, rest, half;
  logic        up;
  assign shift = 8'd126 - x[30:23];
  assign significand = {1'b1, x[22:0]};
  assign kept = significand >> shift[4:0];
  assign rest = significand & ((24'd1 << shift[4:0]) - 24'd1);
  assign half = 24'd1 << (shift[4:0] - 5'd1);
  assign up = (rest > half) || (rest == half && kept[0]);

  logic [15:0] f16;
  assign f16 = nan ? 16'h7E00 :
               (mag >= 31'h477F_F000) ? {x[31], 15'h7C00} :
               (x[30:23] >= 8'd113) ? {x[31], rounded[27:13]} :
               (mag == 31'd0 || shift > 8'd24) ? {x[31], 15'd0} :
               {x[31], 15'(kept + {23'd0, up})};  // from 0x3FF up: 0x0400, the smallest normal

  logic [15:0] bf16;
  assign bf16 = nan ? 16'h7FC0 : bf16_sum[31:16];

  assign y = (mode == ModeBf16) ? {16'd0, bf16} : (mode == ModeF16) ? {16'd0, f16} : x;
endmodule
