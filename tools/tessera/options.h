// A small declarative command-line parser: each subcommand declares one table of
// options (flag, value name, help with the default, environment variable), bound to fields.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::cli {

// Thrown for bad command lines; the message is printed after "tessera <cmd>: ".
struct UsageError {
  std::string message;
};

class OptionTable {
 public:
  OptionTable(std::string command, std::string synopsis, std::string description);

  // Each adder binds an option to a variable; the variable's value when added is
  // the default shown in --help. `env` (optional) names an environment variable
  // read when the flag is absent.
  OptionTable& flag(std::string names, std::string help, bool* target);
  OptionTable& text(std::string names, std::string value_name, std::string help, std::string* target,
                    std::string env = "");
  OptionTable& texts(std::string names, std::string value_name, std::string help,
                     std::vector<std::string>* target);  // repeatable
  OptionTable& integer(std::string names, std::string value_name, std::string help, int64_t* target,
                       int64_t min, int64_t max, std::string env = "");
  OptionTable& number(std::string names, std::string value_name, std::string help, double* target,
                      double min, double max);

  // Parses argv (without the program and command names). Returns the positional
  // arguments; throws UsageError. Sets help_requested() on -h/--help.
  std::vector<std::string> parse(const std::vector<std::string>& args);
  bool help_requested() const { return help_requested_; }
  bool was_set(std::string_view name) const;  // given on the command line or by env
  std::string help_text() const;

 private:
  struct Option {
    std::vector<std::string> names;  // "-m", "--model"
    std::string value_name;          // empty for switches
    std::string help;
    std::string default_text;
    std::string env;
    bool repeatable = false;
    std::function<void(const std::string& flag, const std::string& value)> apply;
    bool seen = false;
  };
  Option& add(std::string names, std::string value_name, std::string help, std::string default_text,
              std::string env);
  Option* find(std::string_view name);

  std::string command_, synopsis_, description_;
  std::vector<Option> options_;
  bool help_requested_ = false;
};

}  // namespace tessera::cli
