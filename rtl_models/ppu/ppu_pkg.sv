// ppu_pkg: the PPU's op codes and the bit-pattern helpers its lanes share (DESIGN.md section 6).
// The op codes are the order of s2::rtl::PpuRtlOp in ppu_rtl.h (the harness passes the enum value).
package ppu_pkg;

  typedef enum logic [3:0] {
    OP_ADD         = 4'd0,
    OP_SUB         = 4'd1,
    OP_MUL         = 4'd2,
    OP_MAX         = 4'd3,
    OP_MIN         = 4'd4,
    OP_RELU        = 4'd5,
    OP_RELU_BWD    = 4'd6,
    OP_AXPBY       = 4'd7,
    OP_SCALE_SHIFT = 4'd8,
    OP_SGD         = 4'd9,
    OP_EPILOGUE    = 4'd10,
    OP_CAST        = 4'd11
  } ppu_op_e;

  localparam logic [31:0] CanonicalNaN = 32'h7FC0_0000;

  // On the magnitude bits (the sign does not matter).
  function automatic logic is_nan(input logic [30:0] x);
    return (x[30:23] == 8'hFF) && (x[22:0] != 23'd0);
  endfunction

  // A value as it leaves the datapath: subnormal read as zero of its sign (DAZ), NaN canonical.
  function automatic logic [31:0] canon_daz(input logic [31:0] x);
    if (is_nan(x[30:0])) return CanonicalNaN;
    if (x[30:23] == 8'd0) return {x[31], 31'd0};
    return x;
  endfunction

  // x > 0 after DAZ (IEEE ordered: NaN and zeros are not).
  function automatic logic gt_zero(input logic [31:0] x);
    return !x[31] && (x[30:23] != 8'd0) && !is_nan(x[30:0]);
  endfunction

  // a > b after DAZ, IEEE ordered (false with a NaN; +0 == -0). Sign-magnitude patterns map to
  // an unsigned order by flipping negative patterns and setting the sign bit of positive ones.
  function automatic logic gt(input logic [31:0] a, input logic [31:0] b);
    logic [31:0] da, db, ka, kb;
    da = canon_daz(a);
    db = canon_daz(b);
    ka = da[31] ? ~da : {1'b1, da[30:0]};
    kb = db[31] ? ~db : {1'b1, db[30:0]};
    if (is_nan(a[30:0]) || is_nan(b[30:0])) return 1'b0;
    if (da[30:0] == 31'd0 && db[30:0] == 31'd0) return 1'b0;
    return ka > kb;
  endfunction

endpackage
