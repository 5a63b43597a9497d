// pe_array: the S2Train weight-stationary systolic PE array, ROWS x COLS, with the tile
// protocol of the simulator's timing model (simulator/timing/pe_array_model.h).
//
// Multiply modes (cfg_mode, sampled at the start of a pass): 0 f32, 1 bf16, 2 f16 -- the type
// of both multiplicands (pe_mac.sv widens 16-bit ones exactly); partial sums and the
// accumulator are always f32. Each PE has MACS multiply-accumulate slots (pe_array_pe.sv). In
// the f32 mode a pass uses slot 0 only: m = 1 chain per column, K_t <= ROWS. In a 16-bit mode
// it uses all of them: m = MACS chains, K_t <= ROWS * MACS, and reduction step k = j*ROWS + r
// lives in slot j of PE row r -- chain j sums the K-tile [j*ROWS, (j+1)*ROWS) of
// isa/numerics/pe_gemm.h. (MACS is the build's MACs per PE per cycle for bf16 and f16:
// pe_array.datatypes of the configuration it stands in for.)
//
// One pass: a block W of K_t x N_t stationary weights (1 <= K_t <= ROWS * m, 1 <= N_t <= COLS)
// and M_t streamed input rows X (1 <= M_t <= MAX_M, M_t x K_t). For every i < M_t, j < N_t and
// every chain q with q*ROWS < K_t the array computes
//   t_q = +0; for r = 0..ROWS-1 with q*ROWS + r < K_t: t_q = fp32_add(t_q, mul(X[i][q*ROWS + r],
//   W[q*ROWS + r][j]))
// (the partial sum runs down column j through PE rows 0.. in order), and the accumulator port
// of column j does C[i][j] = fp32_add(C[i][j], t_q) for q = 0, 1, .. in order
// (pe_array_acc.sv). Slots of steps >= K_t and columns >= N_t are bypassed (pe_array_pe.sv);
// columns >= N_t do not touch the accumulator. cfg_* outside the ranges above are not checked
// here (the harness does).
//
// Structure: PE(r,c) slot q holds W[q*ROWS + r][c]. Each slot's weights enter at the top and
// shift down their own chain one row per cycle (last row first). Input X[i][*] enters row r as
// one word (the f32 X[i][r] in bits 31:0, or in a 16-bit mode X[i][q*ROWS + r] in bits
// [16q+15:16q]) through a skew delay line of r registers, then moves one PE to the right per
// cycle; partial sums move one PE down per cycle; the bottom row feeds one pe_array_acc per
// column. Unused rows and columns still pass data along, so the fill spans the whole physical
// array.
//
// Ports the memories answer:
//  * weight buffer: w_rd_en / w_rd_row request a weight row (K_t-1 first, down to 0); w_rd_data
//    (COLS words of 32 bits, column c in bits [32c+31:32c]: an f32, or a 16-bit value in the
//    low half; columns >= N_t don't care) must hold that row when the same clock edge samples
//    the request. In the idle state the request is a combinational function of start and
//    cfg_k, so the first row loads at the start edge.
//  * input buffer: x_rd_en / x_rd_row request input row i (0 .. M_t-1, in order); the buffer
//    answers with x_rd_valid high in the cycle x_rd_data (ROWS words of XW bits, row r's word
//    in bits [XW*r +: XW]; slots >= K_t don't care) holds the row, and the row enters at that
//    edge. A buffer that delivers a row per cycle holds x_rd_valid high; a narrower one takes
//    b = ceil(row bytes / buffer bytes per cycle) cycles per row (the timing model's beats).
//  * accumulator SRAM, one port pair per column: see pe_array_acc.sv (synchronous read,
//    write at the edge that samples wr_en). Column c's signals sit at [c] / [AW*c +: AW] /
//    [32c +: 32].
//
// Cycle counting (what pass_cycles() models and the harnesses count): number the rising clock
// edges from 1, edge 1 being the edge that samples start high in the idle state. The pass
// takes the number of the edge that samples done high. done is high in exactly one cycle, the
// one before the edge at which the last row's accumulator write of the last PHYSICAL column
// (COLS-1) happens -- whether or not that column is enabled. Edge by edge, for a buffer that
// takes b cycles per input row:
//   edges 1 .. K_t                      weight rows K_t-1 .. 0 shift in
//   edge  K_t+(i+1)*b                   input row i enters (PE(0,0) and the skew lines)
//   edge  K_t+(i+1)*b + r + c           PE(r,c) adds its products of row i
//   edge  K_t+(i+1)*b + (ROWS-1) + c    bottom PE of column c holds the chain sums of row i
//   edge  K_t+(i+1)*b + (ROWS-1) + c + 1 + m    C[i][c] written
// so the last write (i = M_t-1, c = COLS-1) is at edge
// K_t + (ROWS-1) + (COLS-1) + M_t*b + 2 + (m-1).
// busy is high from the edge after the start edge up to and including the done edge;
// start is ignored while busy.
//
// Drain port (the PPU epilogue streams the array's results as they are written: ppu.sv). A
// pass started with cfg_drain high (the last K pass of a tile) raises drain_valid in the cycle
// before the edge at which row i's write reaches the last physical column, for every i: the
// edge K_t + (i+1)*b + (ROWS-1) + (COLS-1) + 2 + (m-1), the last of them the done edge. With it
// drain_row = i and drain_data holds C[i][0..COLS-1] as written (column c in bits
// [32c+31:32c]; columns >= N_t don't care): column c's write is delayed by COLS-1-c
// registers, so the whole row leaves at once. Row i is thus final and complete at that edge;
// a pass with cfg_drain low never raises drain_valid.
module pe_array #(
    parameter int ROWS  = 32,
    parameter int COLS  = 32,
    parameter int MAX_M = 1024,
    parameter int MACS  = 1,  // MACs per PE per cycle in the 16-bit modes (1 .. 8)
    // Derived widths; not meant to be overridden.
    parameter int XW    = MACS > 1 ? 16 * MACS : 32,  // one PE row's input word
    parameter int KW    = $clog2(ROWS * MACS + 1),  // K_t, weight row index
    parameter int NW    = $clog2(COLS + 1),  // N_t
    parameter int MW    = $clog2(MAX_M + 1),  // M_t
    parameter int AW    = $clog2(MAX_M),  // input row / accumulator address
    parameter int CW    = $clog2(MACS + 1)  // m, the chains of a pass
) (
    input  logic               clk,
    input  logic               rst_n,
    input  logic               start,
    input  logic [   1:0]      cfg_mode,
    input  logic [ MW-1:0]     cfg_m,
    input  logic [ NW-1:0]     cfg_n,
    input  logic [ KW-1:0]     cfg_k,
    input  logic               cfg_drain,
    output logic               busy,
    output logic               done,
    output logic               w_rd_en,
    output logic [ KW-1:0]     w_rd_row,
    input  logic [COLS*32-1:0] w_rd_data,
    output logic               x_rd_en,
    output logic [ AW-1:0]     x_rd_row,
    input  logic               x_rd_valid,
    input  logic [ROWS*XW-1:0] x_rd_data,
    output logic [   COLS-1:0] acc_rd_en,
    output logic [COLS*AW-1:0] acc_rd_addr,
    input  logic [COLS*32-1:0] acc_rd_data,
    output logic [   COLS-1:0] acc_wr_en,
    output logic [COLS*AW-1:0] acc_wr_addr,
    output logic [COLS*32-1:0] acc_wr_data,
    output logic               drain_valid,
    output logic [ AW-1:0]     drain_row,
    output logic [COLS*32-1:0] drain_data
);
  typedef enum logic [1:0] {
    Idle,
    Load,
    Stream,
    Drain
  } state_t;

  state_t            state;
  logic   [  KW-1:0] w_row_q;  // next weight row to load
  logic   [  AW-1:0] x_row_q;  // next input row to stream
  logic   [  MW-1:0] m_q;
  logic   [     1:0] mode_q;
  logic   [  CW-1:0] macs_q;  // m: 1 in the f32 mode, MACS in the 16-bit modes
  logic   [MACS-1:0] slot_en  [ROWS];  // slot q of PE row r holds step q*ROWS + r < K_t
  logic   [MACS-1:0] chain_en;  // chain q holds steps: q*ROWS < K_t
  logic              drain_q;  // this pass's rows go to the drain port
  logic   [COLS-1:0] col_en;
  logic              accept;
  logic              x_take;  // an input row enters at this edge

  assign accept   = (state == Idle) && start;
  assign busy     = (state != Idle);
  assign w_rd_en  = accept || (state == Load);
  assign w_rd_row = (state == Idle) ? cfg_k - 1'b1 : w_row_q;
  assign x_rd_en  = (state == Stream);
  assign x_rd_row = x_row_q;
  assign x_take   = x_rd_en & x_rd_valid;

  // The slot whose chain the requested weight row shifts into: w_rd_row / ROWS.
  logic [MACS-1:0] w_shift;
  always_comb
    for (int q = 0; q < MACS; q++)
      w_shift[q] = w_rd_en && {1'b0, w_rd_row} >= (KW + 1)'(q * ROWS) &&
                   {1'b0, w_rd_row} < (KW + 1)'((q + 1) * ROWS);

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      state <= Idle;
    end else begin
      unique case (state)
        Idle:
        if (start) begin
          state <= (cfg_k == KW'(1)) ? Stream : Load;
          w_row_q <= cfg_k - KW'(2);
          x_row_q <= '0;
          m_q <= cfg_m;
          mode_q <= cfg_mode;
          macs_q <= (cfg_mode == 2'd0) ? CW'(1) : CW'(MACS);
          drain_q <= cfg_drain;
          for (int r = 0; r < ROWS; r++)
            for (int q = 0; q < MACS; q++)
              slot_en[r][q] <= (KW + 1)'(q * ROWS + r) < {1'b0, cfg_k};
          for (int q = 0; q < MACS; q++) chain_en[q] <= (KW + 1)'(q * ROWS) < {1'b0, cfg_k};
          for (int c = 0; c < COLS; c++) col_en[c] <= NW'(c) < cfg_n;
        end
        Load: begin
          w_row_q <= w_row_q - 1'b1;
          if (w_row_q == '0) state <= Stream;
        end
        Stream:
        if (x_take) begin
          x_row_q <= x_row_q + 1'b1;
          if ({1'b0, x_row_q} == m_q - 1'b1) state <= Drain;
        end
        Drain: if (done) state <= Idle;
        default: state <= Idle;
      endcase
    end
  end

  // Column 0 inputs of each row: row 0 straight from the buffer, row r through r registers.
  // split_var (here and on the grid below): Verilator orders logic by whole variables, so one
  // element driven by a top-level input (x_edge[0] = x_rd_data) would put every PE reading any
  // element into the input-combinational region, which every eval() runs: the whole array's
  // multipliers twice more per cycle. Split, only PE (0, 0) reads the input directly.
  logic [XW-1:0] x_edge[ROWS]  /*verilator split_var*/;
  logic x_edge_valid[ROWS]  /*verilator split_var*/;
  assign x_edge[0]       = x_rd_data[XW-1:0];
  assign x_edge_valid[0] = x_take;
  for (genvar r = 1; r < ROWS; r++) begin : g_skew
    logic [XW-1:0] d[r];
    logic v[r];
    always_ff @(posedge clk) begin
      d[0] <= x_rd_data[XW*r+:XW];
      for (int s = 1; s < r; s++) d[s] <= d[s-1];
    end
    always_ff @(posedge clk) begin
      if (!rst_n) begin
        for (int s = 0; s < r; s++) v[s] <= 1'b0;
      end else begin
        v[0] <= x_take;
        for (int s = 1; s < r; s++) v[s] <= v[s-1];
      end
    end
    assign x_edge[r]       = d[r-1];
    assign x_edge_valid[r] = v[r-1];
  end

  // The grid. x_h/xv_h run right (column COLS is the unused right edge), w_v and
  // psum_v/pv_v run down (row ROWS of psum feeds the accumulators; of w it is unused).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [XW-1:0] x_h[ROWS][COLS+1]  /*verilator split_var*/;
  logic xv_h[ROWS][COLS+1]  /*verilator split_var*/;
  logic [32*MACS-1:0] w_v[ROWS+1][COLS]  /*verilator split_var*/;  // slot q: bits [32q+31:32q]
  /* verilator lint_on UNUSEDSIGNAL */
  logic [32*MACS-1:0] psum_v[ROWS+1][COLS]  /*verilator split_var*/;
  logic pv_v[ROWS+1][COLS]  /*verilator split_var*/;

  for (genvar r = 0; r < ROWS; r++) begin : g_row
    assign x_h[r][0]  = x_edge[r];
    assign xv_h[r][0] = x_edge_valid[r];
    for (genvar c = 0; c < COLS; c++) begin : g_col
      pe_array_pe #(
          .MACS(MACS),
          .XW  (XW)
      ) u_pe (
          .clk(clk),
          .rst_n(rst_n),
          .mode(mode_q),
          .w_shift(w_shift),
          .w_in(w_v[r][c]),
          .w_out(w_v[r+1][c]),
          .en(slot_en[r] & {MACS{col_en[c]}}),
          .x_in(x_h[r][c]),
          .x_valid_in(xv_h[r][c]),
          .x_out(x_h[r][c+1]),
          .x_valid_out(xv_h[r][c+1]),
          .psum_in(psum_v[r][c]),
          .psum_valid_in(pv_v[r][c]),
          .psum_out(psum_v[r+1][c]),
          .psum_valid_out(pv_v[r+1][c])
      );
    end
  end

  // Top edge: weights from the buffer (every slot's chain sees the column's word; w_shift picks
  // the chain that takes it), partial sums start at +0.0 with the row-0 input's valid.
  logic [AW-1:0] out_addr[COLS];
  logic out_valid[COLS];
  for (genvar c = 0; c < COLS; c++) begin : g_edge
    assign w_v[0][c]    = {MACS{w_rd_data[32*c+:32]}};
    assign psum_v[0][c] = '0;
    assign pv_v[0][c] = xv_h[0][c];
    pe_array_acc #(
        .AW  (AW),
        .MACS(MACS)
    ) u_acc (
        .clk(clk),
        .rst_n(rst_n),
        .clear(accept),
        .en(col_en[c]),
        .macs(macs_q),
        .chain_en(chain_en),
        .psum_in(psum_v[ROWS][c]),
        .psum_valid_in(pv_v[ROWS][c]),
        .rd_en(acc_rd_en[c]),
        .rd_addr(acc_rd_addr[AW*c+:AW]),
        .rd_data(acc_rd_data[32*c+:32]),
        .wr_en(acc_wr_en[c]),
        .wr_addr(acc_wr_addr[AW*c+:AW]),
        .wr_data(acc_wr_data[32*c+:32]),
        .out_valid(out_valid[c]),
        .out_addr(out_addr[c])
    );
  end

  // The last row has reached the write stage of the last physical column.
  assign done = (state == Drain) && out_valid[COLS-1] && ({1'b0, out_addr[COLS-1]} == m_q - 1'b1);

  // The drain port: every column's write, delayed to the last physical column's.
  for (genvar c = 0; c < COLS - 1; c++) begin : g_deskew
    logic [31:0] d[COLS-1-c];
    always_ff @(posedge clk) begin
      d[0] <= acc_wr_data[32*c+:32];
      for (int s = 1; s < COLS - 1 - c; s++) d[s] <= d[s-1];
    end
    assign drain_data[32*c+:32] = d[COLS-2-c];
  end
  assign drain_data[32*(COLS-1)+:32] = acc_wr_data[32*(COLS-1)+:32];
  assign drain_valid = busy && drain_q && out_valid[COLS-1];
  assign drain_row = out_addr[COLS-1];
endmodule
