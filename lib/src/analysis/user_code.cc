// Which Python files are the user's code (see user_code.h).
#include "analysis/user_code.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace feedprof::analysis {
namespace {

// Python's sys.stdlib_module_names (3.11), sorted.
constexpr std::string_view kStandardModules[] = {
    "__future__",
    "_abc",
    "_aix_support",
    "_ast",
    "_asyncio",
    "_bisect",
    "_blake2",
    "_bootsubprocess",
    "_bz2",
    "_codecs",
    "_codecs_cn",
    "_codecs_hk",
    "_codecs_iso2022",
    "_codecs_jp",
    "_codecs_kr",
    "_codecs_tw",
    "_collections",
    "_collections_abc",
    "_compat_pickle",
    "_compression",
    "_contextvars",
    "_crypt",
    "_csv",
    "_ctypes",
    "_curses",
    "_curses_panel",
    "_datetime",
    "_dbm",
    "_decimal",
    "_elementtree",
    "_frozen_importlib",
    "_frozen_importlib_external",
    "_functools",
    "_gdbm",
    "_hashlib",
    "_heapq",
    "_imp",
    "_io",
    "_json",
    "_locale",
    "_lsprof",
    "_lzma",
    "_markupbase",
    "_md5",
    "_msi",
    "_multibytecodec",
    "_multiprocessing",
    "_opcode",
    "_operator",
    "_osx_support",
    "_overlapped",
    "_pickle",
    "_posixshmem",
    "_posixsubprocess",
    "_py_abc",
    "_pydecimal",
    "_pyio",
    "_queue",
    "_random",
    "_scproxy",
    "_sha1",
    "_sha256",
    "_sha3",
    "_sha512",
    "_signal",
    "_sitebuiltins",
    "_socket",
    "_sqlite3",
    "_sre",
    "_ssl",
    "_stat",
    "_statistics",
    "_string",
    "_strptime",
    "_struct",
    "_symtable",
    "_thread",
    "_threading_local",
    "_tkinter",
    "_tokenize",
    "_tracemalloc",
    "_typing",
    "_uuid",
    "_warnings",
    "_weakref",
    "_weakrefset",
    "_winapi",
    "_zoneinfo",
    "abc",
    "aifc",
    "antigravity",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "bdb",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cgi",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "crypt",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "distutils",
    "doctest",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "idlelib",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
};

constexpr std::array<std::string_view, 8> kFrameworks = {
    "jax",   "jaxlib",     "keras",       "tensorflow",
    "torch", "torchaudio", "torchvision", "triton"};

// The top-level module of a path relative to an import root:
// "torch/cuda/__init__.py" -> "torch", "threading.py" -> "threading".
std::string_view TopModule(std::string_view relative) {
  const size_t slash = relative.find('/');
  if (slash != std::string_view::npos) return relative.substr(0, slash);
  return relative.ends_with(".py") ? relative.substr(0, relative.size() - 3)
                                   : relative;
}

bool IsStandardModule(std::string_view module) {
  return std::binary_search(std::begin(kStandardModules),
                            std::end(kStandardModules), module);
}

bool IsFramework(std::string_view module) {
  return std::find(kFrameworks.begin(), kFrameworks.end(), module) !=
         kFrameworks.end();
}

// Whether an absolute path lies in an interpreter's library directory: a
// component "pythonX.Y" (site-packages are told apart before this).
bool UnderPythonLibrary(std::string_view path) {
  for (size_t at = path.find("/python"); at != std::string_view::npos;
       at = path.find("/python", at + 1)) {
    size_t i = at + 7;
    const auto digits = [&] {
      const size_t from = i;
      while (i < path.size() && path[i] >= '0' && path[i] <= '9') ++i;
      return i > from;
    };
    if (digits() && i < path.size() && path[i] == '.' && (++i, digits()) &&
        (i == path.size() || path[i] == '/')) {
      return true;
    }
  }
  return false;
}

// What `rule` says of `path`: not_user first, then user; unset when it
// says nothing.
std::optional<bool> Overridden(std::string_view path,
                               const UserCodeRule& rule) {
  const auto any_in = [path](const std::vector<std::string>& parts) {
    return std::any_of(parts.begin(), parts.end(), [path](const auto& part) {
      return !part.empty() && path.find(part) != std::string_view::npos;
    });
  };
  if (any_in(rule.not_user)) return false;
  if (any_in(rule.user)) return true;
  return std::nullopt;
}

}  // namespace

bool IsUserPythonFile(std::string_view file, const UserCodeRule& rule) {
  if (file.empty() || file.front() == '<') return false;
  if (const std::optional<bool> chosen = Overridden(file, rule)) {
    return *chosen;
  }
  for (std::string_view packages : {"/site-packages/", "/dist-packages/"}) {
    const size_t at = file.rfind(packages);
    if (at != std::string_view::npos) {
      return !IsFramework(TopModule(file.substr(at + packages.size())));
    }
  }
  if (file.front() == '/') return !UnderPythonLibrary(file);
  const std::string_view top = TopModule(file);
  return !IsStandardModule(top) && !IsFramework(top);
}

bool IsUserNativeModule(std::string_view module, const UserCodeRule& rule) {
  if (module.empty() || module.front() == '[') return false;  // [kernel]
  if (const std::optional<bool> chosen = Overridden(module, rule)) {
    return *chosen;
  }
  for (std::string_view system :
       {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/cuda",
        "/opt/nvidia/", "/usr/local/nvidia/"}) {
    if (module.starts_with(system)) return false;
  }
  const size_t slash = module.rfind('/');
  const std::string_view name =
      slash == std::string_view::npos ? module : module.substr(slash + 1);
  for (std::string_view runtime :
       {"ld-linux", "libc.", "libc-", "libm.", "libpthread", "libdl.",
        "libstdc++", "libgcc_s", "libcuda", "libcudart", "libcupti",
        "libnvToolsExt", "libnvrtc", "libcublas", "libcudnn", "libnccl",
        "libpython", "libtorch", "libc10", "libfeedprof", "python",
        // MPI and the interconnects' libraries.
        "libmpi", "libfabric", "libucp", "libucs", "libuct", "libibverbs",
        "libcxi", "libhwloc", "libpmi", "libnvidia-",
        // Profilers' own: Nsight Systems' injection libraries.
        "libToolsInjection"}) {
    if (name.starts_with(runtime)) return false;
  }
  return true;
}

}  // namespace feedprof::analysis
