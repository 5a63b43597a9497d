// pe_array: the S2Train weight-stationary systolic PE array, ROWS x COLS, with the tile
// protocol of the simulator's timing model (simulator/timing/pe_array_model.h).
//
// One pass: a block W of K_t x N_t stationary weights (1 <= K_t <= ROWS, 1 <= N_t <= COLS) and
// M_t streamed input rows X (1 <= M_t <= MAX_M, M_t x K_t). For every i < M_t, j < N_t the
// array computes  t = +0; for r = 0..K_t-1: t = fp32_add(t, fp32_mul(X[i][r], W[r][j]))
// (the partial sum runs down column j through PE rows 0..K_t-1 in order) and the accumulator
// port of column j does the read-add-write  C[i][j] = fp32_add(C[i][j], t).
// PEs in rows >= K_t or columns >= N_t are bypassed (pe_array_pe.sv); columns >= N_t do not
// touch the accumulator. cfg_* outside the ranges above are not checked here (the harness does).
//
// Structure: PE(r,c) holds W[r][c]. Weights enter at the top and shift down one row per cycle
// (last row first). Input X[i][r] enters row r through a skew delay line of r registers, then
// moves one PE to the right per cycle; partial sums move one PE down per cycle; the bottom
// row feeds one pe_array_acc per column. Unused rows and columns still pass data along, so the
// fill spans the whole physical array.
//
// Ports the memories answer:
//  * weight buffer: w_rd_en / w_rd_row request a weight row (K_t-1 first, down to 0); w_rd_data
//    (COLS fp32, column c in bits [32c+31:32c], columns >= N_t don't care) must hold that row
//    when the same clock edge samples the request. In the idle state the request is a
//    combinational function of start and cfg_k, so the first row loads at the start edge.
//  * input buffer: x_rd_en / x_rd_row request input row i (0 .. M_t-1, one per cycle);
//    x_rd_data (ROWS fp32, element r in bits [32r+31:32r], rows >= K_t don't care) is sampled
//    at the same edge.
//  * accumulator SRAM, one port pair per column: see pe_array_acc.sv (synchronous read,
//    write at the edge that samples wr_en). Column c's signals sit at [c] / [AW*c +: AW] /
//    [32c +: 32].
//
// Cycle counting (what pass_cycles() models and the harnesses count): number the rising clock
// edges from 1, edge 1 being the edge that samples start high in the idle state. The pass
// takes the number of the edge that samples done high. done is high in exactly one cycle, the
// one before the edge at which the last row's accumulator write of the last PHYSICAL column
// (COLS-1) happens -- whether or not that column is enabled. Edge by edge:
//   edges 1 .. K_t                      weight rows K_t-1 .. 0 shift in
//   edge  K_t+1+i                       input row i enters (PE(0,0) and the skew lines)
//   edge  K_t+1+i + r + c               PE(r,c) adds X[i][r] * W[r][c]
//   edge  K_t+1+i + (ROWS-1) + c        bottom PE of column c holds t(i, c)
//   edge  K_t+1+i + (ROWS-1) + c + 2    C[i][c] written
// so the last write (i = M_t-1, c = COLS-1) is at edge K_t + (ROWS-1) + (COLS-1) + M_t + 2.
// busy is high from the edge after the start edge up to and including the done edge;
// start is ignored while busy.
module pe_array #(
    parameter int ROWS  = 32,
    parameter int COLS  = 32,
    parameter int MAX_M = 1024,
    // Derived widths; not meant to be overridden.
    parameter int KW    = $clog2(ROWS + 1),  // K_t, weight row index
    parameter int NW    = $clog2(COLS + 1),  // N_t
    parameter int MW    = $clog2(MAX_M + 1),  // M_t
    parameter int AW    = $clog2(MAX_M)  // input row / accumulator address
) (
    input  logic               clk,
    input  logic               rst_n,
    input  logic               start,
    input  logic [ MW-1:0]     cfg_m,
    input  logic [ NW-1:0]     cfg_n,
    input  logic [ KW-1:0]     cfg_k,
    output logic               busy,
    output logic               done,
    output logic               w_rd_en,
    output logic [ KW-1:0]     w_rd_row,
    input  logic [COLS*32-1:0] w_rd_data,
    output logic               x_rd_en,
    output logic [ AW-1:0]     x_rd_row,
    input  logic [ROWS*32-1:0] x_rd_data,
    output logic [   COLS-1:0] acc_rd_en,
    output logic [COLS*AW-1:0] acc_rd_addr,
    input  logic [COLS*32-1:0] acc_rd_data,
    output logic [   COLS-1:0] acc_wr_en,
    output logic [COLS*AW-1:0] acc_wr_addr,
    output logic [COLS*32-1:0] acc_wr_data
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
  logic   [ROWS-1:0] row_en;
  logic   [COLS-1:0] col_en;
  logic              accept;

  assign accept   = (state == Idle) && start;
  assign busy     = (state != Idle);
  assign w_rd_en  = accept || (state == Load);
  assign w_rd_row = (state == Idle) ? cfg_k - 1'b1 : w_row_q;
  assign x_rd_en  = (state == Stream);
  assign x_rd_row = x_row_q;

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
          for (int r = 0; r < ROWS; r++) row_en[r] <= KW'(r) < cfg_k;
          for (int c = 0; c < COLS; c++) col_en[c] <= NW'(c) < cfg_n;
        end
        Load: begin
          w_row_q <= w_row_q - 1'b1;
          if (w_row_q == '0) state <= Stream;
        end
        Stream: begin
          x_row_q <= x_row_q + 1'b1;
          if ({1'b0, x_row_q} == m_q - 1'b1) state <= Drain;
        end
        Drain: if (done) state <= Idle;
        default: state <= Idle;
      endcase
    end
  end

  // Column 0 inputs of each row: row 0 straight from the buffer, row r through r registers.
  logic [31:0] x_edge[ROWS];
  logic x_edge_valid[ROWS];
  assign x_edge[0]       = x_rd_data[31:0];
  assign x_edge_valid[0] = x_rd_en;
  for (genvar r = 1; r < ROWS; r++) begin : g_skew
    logic [31:0] d[r];
    logic v[r];
    always_ff @(posedge clk) begin
      d[0] <= x_rd_data[32*r+:32];
      for (int s = 1; s < r; s++) d[s] <= d[s-1];
    end
    always_ff @(posedge clk) begin
      if (!rst_n) begin
        for (int s = 0; s < r; s++) v[s] <= 1'b0;
      end else begin
        v[0] <= x_rd_en;
        for (int s = 1; s < r; s++) v[s] <= v[s-1];
      end
    end
    assign x_edge[r]       = d[r-1];
    assign x_edge_valid[r] = v[r-1];
  end

  // The grid. x_h/xv_h run right (column COLS is the unused right edge), w_v and
  // psum_v/pv_v run down (row ROWS of psum feeds the accumulators; of w it is unused).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] x_h[ROWS][COLS+1];
  logic xv_h[ROWS][COLS+1];
  logic [31:0] w_v[ROWS+1][COLS];
  /* verilator lint_on UNUSEDSIGNAL */
  logic [31:0] psum_v[ROWS+1][COLS];
  logic pv_v[ROWS+1][COLS];

  for (genvar r = 0; r < ROWS; r++) begin : g_row
    assign x_h[r][0]  = x_edge[r];
    assign xv_h[r][0] = x_edge_valid[r];
    for (genvar c = 0; c < COLS; c++) begin : g_col
      pe_array_pe u_pe (
          .clk(clk),
          .rst_n(rst_n),
          .w_shift(w_rd_en),
          .w_in(w_v[r][c]),
          .w_out(w_v[r+1][c]),
          .en(row_en[r] & col_en[c]),
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

  // Top edge: weights from the buffer, partial sums start at +0.0 with the row-0 input's valid.
  logic [AW-1:0] s1_addr[COLS];
  logic s1_valid[COLS];
  for (genvar c = 0; c < COLS; c++) begin : g_edge
    assign w_v[0][c]    = w_rd_data[32*c+:32];
    assign psum_v[0][c] = 32'h0000_0000;
    assign pv_v[0][c]   = xv_h[0][c];
    pe_array_acc #(
        .AW(AW)
    ) u_acc (
        .clk(clk),
        .rst_n(rst_n),
        .clear(accept),
        .en(col_en[c]),
        .psum_in(psum_v[ROWS][c]),
        .psum_valid_in(pv_v[ROWS][c]),
        .rd_en(acc_rd_en[c]),
        .rd_addr(acc_rd_addr[AW*c+:AW]),
        .rd_data(acc_rd_data[32*c+:32]),
        .wr_en(acc_wr_en[c]),
        .wr_addr(acc_wr_addr[AW*c+:AW]),
        .wr_data(acc_wr_data[32*c+:32]),
        .s1_valid(s1_valid[c]),
        .s1_addr(s1_addr[c])
    );
  end

  // The last row has reached the write stage of the last physical column.
  assign done = (state == Drain) && s1_valid[COLS-1] && ({1'b0, s1_addr[COLS-1]} == m_q - 1'b1);
endmodule
