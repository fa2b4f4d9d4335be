#include "tools/tessera/options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace tessera::cli {
namespace {

std::vector<std::string> split_names(const std::string& names) {
  std::vector<std::string> out;
  std::stringstream ss(names);
  std::string part;
  while (std::getline(ss, part, ',')) {
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

std::string format_number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

OptionTable::OptionTable(std::string command, std::string synopsis, std::string description)
    : command_(std::move(command)), synopsis_(std::move(synopsis)), description_(std::move(description)) {}

OptionTable::Option& OptionTable::add(std::string names, std::string value_name, std::string help,
                                      std::string default_text, std::string env) {
  Option o;
  o.names = split_names(names);
  o.value_name = std::move(value_name);
  o.help = std::move(help);
  o.default_text = std::move(default_text);
  o.env = std::move(env);
  options_.push_back(std::move(o));
  return options_.back();
}

OptionTable& OptionTable::flag(std::string names, std::string help, bool* target) {
  add(std::move(names), "", std::move(help), "", "").apply = [target](const std::string&, const std::string&) {
    *target = true;
  };
  return *this;
}

OptionTable& OptionTable::text(std::string names, std::string value_name, std::string help,
                               std::string* target, std::string env) {
  add(std::move(names), std::move(value_name), std::move(help), *target, std::move(env)).apply =
      [target](const std::string&, const std::string& v) { *target = v; };
  return *this;
}

OptionTable& OptionTable::texts(std::string names, std::string value_name, std::string help,
                                std::vector<std::string>* target) {
  Option& o = add(std::move(names), std::move(value_name), std::move(help), "", "");
  o.repeatable = true;
  o.apply = [target](const std::string&, const std::string& v) { target->push_back(v); };
  return *this;
}

OptionTable& OptionTable::integer(std::string names, std::string value_name, std::string help,
                                  int64_t* target, int64_t min, int64_t max, std::string env) {
  add(std::move(names), std::move(value_name), std::move(help), std::to_string(*target), std::move(env))
      .apply = [target, min, max](const std::string& flag, const std::string& v) {
    errno = 0;
    char* end = nullptr;
    const long long parsed = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || errno == ERANGE) {
      throw UsageError{"option " + flag + " expects an integer, got '" + v + "'"};
    }
    if (parsed < min || parsed > max) {
      throw UsageError{"option " + flag + " must be between " + std::to_string(min) + " and " +
                       std::to_string(max) + ", got " + v};
    }
    *target = parsed;
  };
  return *this;
}

OptionTable& OptionTable::number(std::string names, std::string value_name, std::string help,
                                 double* target, double min, double max) {
  add(std::move(names), std::move(value_name), std::move(help), format_number(*target), "").apply =
      [target, min, max](const std::string& flag, const std::string& v) {
        char* end = nullptr;
        const double parsed = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !std::isfinite(parsed)) {
          throw UsageError{"option " + flag + " expects a number, got '" + v + "'"};
        }
        if (parsed < min || parsed > max) {
          throw UsageError{"option " + flag + " must be between " + format_number(min) + " and " +
                           format_number(max) + ", got " + v};
        }
        *target = parsed;
      };
  return *this;
}

OptionTable::Option* OptionTable::find(std::string_view name) {
  for (Option& o : options_) {
    for (const std::string& n : o.names) {
      if (n == name) return &o;
    }
  }
  return nullptr;
}

bool OptionTable::was_set(std::string_view name) const {
  for (const Option& o : options_) {
    for (const std::string& n : o.names) {
      if (n == name) return o.seen;
    }
  }
  return false;
}

std::vector<std::string> OptionTable::parse(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "-h" || arg == "--help") {
      help_requested_ = true;
      continue;
    }
    if (arg == "--") {
      positional.insert(positional.end(), args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9')) {
      positional.push_back(arg);
      continue;
    }
    std::string value;
    bool has_inline_value = false;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline_value = true;
    }
    Option* o = find(arg);
    if (!o) throw UsageError{"unknown option '" + arg + "' (see --help)"};
    if (o->seen && !o->repeatable) throw UsageError{"option " + arg + " given twice"};
    if (o->value_name.empty()) {
      if (has_inline_value) throw UsageError{"option " + arg + " takes no value"};
    } else if (!has_inline_value) {
      if (i + 1 >= args.size()) throw UsageError{"option " + arg + " expects a value " + o->value_name};
      value = args[++i];
    }
    o->apply(arg, value);
    o->seen = true;
  }
  for (Option& o : options_) {
    if (o.seen || o.env.empty()) continue;
    if (const char* v = std::getenv(o.env.c_str()); v && *v) {
      o.apply(o.env, v);
      o.seen = true;
    }
  }
  return positional;
}

std::string OptionTable::help_text() const {
  std::ostringstream os;
  os << "usage: tessera " << command_ << " " << synopsis_ << "\n\n" << description_ << "\n\noptions:\n";
  for (const Option& o : options_) {
    std::string left = "  ";
    for (size_t i = 0; i < o.names.size(); ++i) left += (i ? ", " : "") + o.names[i];
    if (!o.value_name.empty()) left += " " + o.value_name;
    os << left;
    os << std::string(left.size() < 28 ? 28 - left.size() : 1, ' ') << o.help;
    if (!o.default_text.empty()) os << " (default: " << o.default_text << ")";
    if (!o.env.empty()) os << " [env " << o.env << "]";
    if (o.repeatable) os << " (repeatable)";
    os << "\n";
  }
  os << "  -h, --help                  show this help\n";
  return os.str();
}

}  // namespace tessera::cli
