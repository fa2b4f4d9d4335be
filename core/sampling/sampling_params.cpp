#include "core/sampling/sampling_params.h"

#include <cmath>
#include <sstream>
#include <string>

#include "core/util/error.h"

namespace tessera {

namespace {

template <typename T>
[[noreturn]] void reject(const char* field, const char* flag, const char* rule, T value) {
  std::ostringstream message;
  message << "invalid sampling parameter " << field << " (" << flag << "): must be " << rule
          << ", got " << value;
  throw Error(message.str());
}

}  // namespace

void SamplingParams::validate() const {
  // Written as !(ok) so that NaN, for which every comparison is false, is rejected.
  if (!(std::isfinite(temperature) && temperature >= 0.0f)) {
    reject("temperature", "--temp", "a finite number >= 0", temperature);
  }
  if (!(top_k >= 0)) reject("top_k", "--top-k", ">= 0 (0 = off)", top_k);
  if (!(top_p > 0.0f && top_p <= 1.0f)) {
    reject("top_p", "--top-p", "in (0, 1] (1 = off)", top_p);
  }
  if (!(min_p >= 0.0f && min_p <= 1.0f)) {
    reject("min_p", "--min-p", "in [0, 1] (0 = off)", min_p);
  }
  if (!(std::isfinite(repetition_penalty) && repetition_penalty > 0.0f)) {
    reject("repetition_penalty", "--repeat-penalty", "a finite number > 0 (1 = off)",
           repetition_penalty);
  }
  if (!(repeat_last_n >= 0)) {
    reject("repeat_last_n", "--repeat-last-n", ">= 0 (0 = off)", repeat_last_n);
  }
  if (!(presence_penalty >= -2.0f && presence_penalty <= 2.0f)) {
    reject("presence_penalty", "--presence-penalty", "in [-2, 2] (0 = off)", presence_penalty);
  }
  if (!(frequency_penalty >= -2.0f && frequency_penalty <= 2.0f)) {
    reject("frequency_penalty", "--frequency-penalty", "in [-2, 2] (0 = off)", frequency_penalty);
  }
}

}  // namespace tessera
