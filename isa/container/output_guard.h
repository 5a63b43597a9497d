#pragma once
// Protects what the user has from being destroyed by a tool's output file. Every output path of
// s2c and s2sim (executables, JSON reports and manifests, traces, .npy dumps, IR text, the ISA
// reference) is checked here before the run does any work, and written by isa::write_file
// (writer.h): into a fresh temporary file beside it, renamed into place only when complete.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace s2::isa {

// The kinds of file the tools write, each recognised by its first bytes.
enum class FileKind {
  Executable,  // an S2Train executable: its magic
  Json,        // reports, traces, manifests, the memory plan: '{' or '[' first
  Csv,         // s2sim's memory trace: "time_cycles,live_bytes"
  Npy,         // NumPy arrays: "\x93NUMPY"
  IrText,      // the compiler's text form: "graph NAME" after any comment lines
  IsaDoc,      // s2c isa-doc's Markdown: "# S2Train ISA reference"
  Vcd,         // RTL waveforms (s2sim --vcd): a VCD header keyword ("$date", "$version", ...)
};

const char* file_kind_name(FileKind kind);

// The kind of the existing file at `path`, or none for a file no tool of ours writes (or one
// that cannot be read).
std::optional<FileKind> existing_kind(const std::string& path);

// The longest file name Linux file systems take (NAME_MAX).
inline constexpr size_t kMaxFileName = 255;

// Whether the directory an output goes into must exist already, or the tool makes it (a dump
// directory) and only its nearest existing ancestor must be a directory.
enum class OutputDir { MustExist, Made };

// Throws UserError naming `output` when writing a file of `kind` there would destroy something
// the user did not ask to replace, or would fail only once the work is done:
//   * it is one of `inputs` (the same file by identity, however spelt), even with `force`;
//   * it is a directory, a block device or a socket;
//   * it exists, is not empty and is not a file of `kind`, unless `force`;
//   * its directory does not exist (`dir`: MustExist), or is not a directory, or no file can be
//     created there (a read-only file system; a probe file is created and removed);
//   * its file name is longer than kMaxFileName bytes.
// Replacing an earlier output of the same kind is the normal re-run. A pipe or a character device
// (/dev/null, /dev/stdout) is allowed as it is: it takes a stream and holds nothing to lose. A
// symbolic link stands for its target throughout.
void guard_output(const std::string& output, FileKind kind, const std::vector<std::string>& inputs,
                  bool force, OutputDir dir = OutputDir::MustExist);

}  // namespace s2::isa
