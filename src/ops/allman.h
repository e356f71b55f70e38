// Allman's four operations (seed 000, "An Evaluation of XML-RPC", 2003):
// the arithmetic the server core runs, the inputs a client sends and the
// check it makes of each reply. Transport-neutral: the adapters only carry
// an int32 or a vector of doubles each way, typed as doubles in their IDL.
//
//   IsPrime(n)           small in, small out   (int32 -> bool)
//   Average(values)      big in, small out     (N doubles -> one double)
//   GetRandNums(count)   small in, big out     (int32 -> N doubles in [0, 1))
//   LogTransform(values) big in, big out       (N doubles -> their natural logs)
//
// Bad input, defined once for every transport: Average and LogTransform
// refuse any value that is not finite (NaN, +-inf), LogTransform also any
// value <= 0 (ln would give -inf or NaN, which JSON and XML-RPC cannot
// carry), Average an empty list (no mean), GetRandNums a count below 0 or
// above kAllmanMaxValues. A refused call runs nothing and gets the
// transport's "invalid argument" (allman_refusal says why).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rpclab {

// The ECHO bound of idl/rpclab.x (16 MiB) in doubles, as allman_doubles there.
inline constexpr size_t kAllmanMaxValues = size_t{2} << 20;
// IsPrime's argument in the workload: a prime, so the server divides ~1000 times.
inline constexpr int32_t kAllmanPrime = 1000003;

bool allman_is_prime(int32_t n);
// The mean by running update, so a large sum never overflows to inf.
double allman_average(const double* values, size_t n);
// Why a call must be refused, or nothing.
std::optional<std::string> allman_refuse_average(const double* values, size_t n);
std::optional<std::string> allman_refuse_log(const double* values, size_t n);
std::optional<std::string> allman_refuse_count(int64_t count);
void allman_log_transform(const double* values, size_t n, double* out);
// `count` uniform doubles in [0, 1) from this thread's generator.
void allman_rand_nums(size_t count, double* out);

// The N doubles a client sends: the same for the same (n, client), spread
// over (0, 1000) with all their digits, like Allman's random inputs.
std::vector<double> allman_inputs(size_t n, uint32_t client_id);

// The client's checks: "" when the reply is right, else what is wrong.
// Text transports print a double and parse it back: the shortest form that
// reads back exactly (17 significant digits) loses nothing, so a reply must
// match to 1e-12 relative, which allows a last-digit rounding only.
std::string allman_check_average(const std::vector<double>& sent, double mean);
std::string allman_check_rand(size_t count, const std::vector<double>& got);
std::string allman_check_log(const std::vector<double>& sent, const std::vector<double>& got);

}  // namespace rpclab
