// The NDJSON events commands print with --json (docs/cli.md): one object per
// line, built here and nowhere else, so every command spells a field the
// same way. Each function returns the line, newline included.
#pragma once

#include <cstdint>
#include <string>

namespace spritz::events {

// {"type":"frame","frame":N,"time":T,"clock":C,"path":P[,"seed":S],"particles":N,"ms":M}
std::string frame(int64_t number, double time, double clock, const std::string& path,
                  const std::string& seed_field, uint64_t particles, double ms);
// {"type":"frame","frame":N,"time":T,"path":P[,"seed":S],"skipped":true}
std::string frame_skipped(int64_t number, double time, const std::string& path,
                          const std::string& seed_field);
// {"type":"error","frame":N,"message":M}
std::string frame_error(int64_t number, const std::string& message);
// ",\"seed\":S" for a frame of a --seeds run, else "".
std::string seed_field(bool has_seed, int64_t seed);

// {"type":"check","effect":E,"time":T,"golden":G,"status":S,"different":N,"ratio":R,
//  "max_channel_diff":M,"actual":A|null,"diff":D|null}
std::string check(const std::string& effect, double time, const std::string& golden,
                  const std::string& status, uint64_t different, double ratio, int max_channel,
                  const std::string& actual, const std::string& diff);
// {"type":"summary","checked":N,"failed":N,"updated":N}
std::string check_summary(uint64_t checked, uint64_t failed, uint64_t updated);

}  // namespace spritz::events
