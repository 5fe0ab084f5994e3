// What `spritz check` reports beyond its lines: the HTML report (--report).
#pragma once

#include <string>
#include <vector>

#include "spritz/error.h"

namespace spritz {

// One check's result for the reports (--junit, --report, GitHub annotations).
struct CheckRecord {
  std::string effect, file, name, status, detail, actual, diff;
  bool ok = true;
  SourceLoc where;        // the effect file's [check] times, else its [effect] table
  std::string golden;     // the golden's path
  std::string tolerance;  // the tolerances that applied, as words
};

// Text for XML and HTML alike (JUnit, the report): & < > " ' as entities,
// and control characters XML 1.0 forbids as spaces.
std::string markup_escape(const std::string& s);

// A static HTML report in `dir` that opens from file:// without a server:
// `index.html` and `img/` (the expected, actual and diff images of every
// failure, copied in, referenced relative to the report so CI can upload
// the folder). Failures first, each with its figures and tolerances and the
// images as tabs, side by side and under a slider; then missing and stale
// goldens; passing checks collapsed.
void write_check_report(const std::string& dir, const std::vector<CheckRecord>& records,
                        const std::vector<std::string>& stale);

}  // namespace spritz
