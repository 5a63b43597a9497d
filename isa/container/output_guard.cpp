#include "isa/container/output_guard.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "isa/common/errors.h"
#include "isa/container/executable.h"

namespace s2::isa {
namespace {

// Why no file can be created in `dir` ("" when one can): creates and removes a probe file, since
// access() answers for permissions only (root passes it on a read-only mount, and in /proc).
std::string cannot_create_in(const std::filesystem::path& dir) {
  const std::string probe = (dir / (".s2probe." + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno == EEXIST ? "" : std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// The compiler's text form: comment lines ("//" or "#"), then "graph NAME".
bool is_ir_text(const std::string& head) {
  size_t at = 0;
  while (at < head.size()) {
    const size_t end = head.find('\n', at);
    const std::string line = head.substr(at, end == std::string::npos ? end : end - at);
    const size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string::npos) {
      const std::string text = line.substr(first);
      if (!starts_with(text, "//") && !starts_with(text, "#")) return starts_with(text, "graph ");
    }
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return false;
}

}  // namespace

const char* file_kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::Executable:
      return "an S2Train executable";
    case FileKind::Json:
      return "a JSON file";
    case FileKind::Csv:
      return "a memory-trace CSV file";
    case FileKind::Npy:
      return "a .npy array";
    case FileKind::IrText:
      return "an IR text file";
    case FileKind::IsaDoc:
      return "the ISA reference";
    case FileKind::Vcd:
      return "a VCD waveform";
  }
  return "a file";
}

std::optional<FileKind> existing_kind(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string head(4096, '\0');
  f.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(f.gcount()));
  if (head.size() >= sizeof kMagic && std::memcmp(head.data(), kMagic, sizeof kMagic) == 0)
    return FileKind::Executable;
  if (starts_with(head, "\x93NUMPY")) return FileKind::Npy;
  if (starts_with(head, "time_cycles,live_bytes")) return FileKind::Csv;
  if (starts_with(head, "# S2Train ISA reference")) return FileKind::IsaDoc;
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (head[first] == '{' || head[first] == '['))
    return FileKind::Json;
  if (is_ir_text(head)) return FileKind::IrText;
  if (first != std::string::npos)
    for (const char* keyword : {"$date", "$version", "$timescale", "$comment", "$scope"})
      if (starts_with(head.substr(first), keyword)) return FileKind::Vcd;
  return std::nullopt;
}

void guard_output(const std::string& output, FileKind kind, const std::vector<std::string>& inputs,
                  bool force, OutputDir dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A name the file system cannot hold would fail only when written, after the work (a dump of
  // a tensor with a long ONNX name).
  const size_t name_bytes = fs::path(output).filename().string().size();
  if (name_bytes > kMaxFileName)
    throw UserError(output + ": cannot write: its name is " + std::to_string(name_bytes) +
                    " bytes, more than the " + std::to_string(kMaxFileName) +
                    " a file name may have");
  const fs::file_status status = fs::status(output, ec);  // of a symbolic link's target
  if (!fs::exists(status)) {
    // A file in a missing directory would fail only when written, after the work.
    fs::path parent = fs::path(output).parent_path();
    if (dir == OutputDir::Made)
      while (!parent.empty() && !fs::exists(parent, ec) && parent != parent.parent_path())
        parent = parent.parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec))
      throw UserError(output + ": cannot write: '" + parent.string() + "' " +
                      (fs::exists(parent, ec) ? "is not a directory" : "does not exist"));
    // Nor would a directory where no file can be created.
    if (const std::string why = cannot_create_in(parent.empty() ? "." : parent); !why.empty())
      throw UserError(output + ": cannot write: " + why);
    return;
  }
  for (const std::string& in : inputs)
    if (!in.empty() && fs::equivalent(output, in, ec))
      throw UserError(output + ": is an input of this run (" + in +
                      "); refusing to overwrite it with the output");
  if (fs::is_directory(status))
    throw UserError(output + ": is a directory; the output is " + file_kind_name(kind));
  // A pipe or a character device (/dev/null, /dev/stdout, a shell's <(...) or >(...)) takes the
  // output as a stream and holds nothing to lose; it is never read here (opening a pipe to read
  // waits for a writer) and write_file() writes into it in place.
  if (fs::is_fifo(status) || fs::is_character_file(status)) return;
  if (!fs::is_regular_file(status))
    throw UserError(output + ": is " +
                    (fs::is_block_file(status) ? "a block device"
                     : fs::is_socket(status)   ? "a socket"
                                               : "not a regular file") +
                    "; the output is " + file_kind_name(kind) +
                    ", written to a file, a pipe or a character device");
  // The file is replaced by renaming a new one onto it in its directory (a link's target's).
  if (const fs::path resolved = fs::canonical(output, ec); !ec)
    if (const std::string why = cannot_create_in(resolved.parent_path()); !why.empty())
      throw UserError(output + ": cannot write: " + why);
  if (force || fs::file_size(output, ec) == 0) return;
  const std::optional<FileKind> have = existing_kind(output);
  if (have == kind) return;
  throw UserError(output + ": exists and is " +
                  (have ? std::string(file_kind_name(*have)) : "not a file this tool writes") +
                  ", not " + file_kind_name(kind) +
                  "; refusing to overwrite it (pass --force to replace it)");
}

}  // namespace s2::isa
