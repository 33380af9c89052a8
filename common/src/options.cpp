// options.cpp: what the shared settings imply, for code that reads them without the parser.
#include "lab/options.hpp"

namespace lab {

OutputFormat output_format(const Options& options) {
  if (options.json) return OutputFormat::json;
  if (options.csv) return OutputFormat::csv;
  if (options.summary) return OutputFormat::summary;
  return OutputFormat::human;
}

}  // namespace lab
