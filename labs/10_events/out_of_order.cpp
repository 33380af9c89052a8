// out_of_order.cpp: part 2 of the events lab, in-order and out-of-order queues. The same three
// independent kernels run one after another on the in-order queue (checked) and may overlap on
// the out-of-order one (reported).
#include "bench.hpp"

namespace events {

// Part 2: the same independent kernels on an in-order and on an out-of-order queue.
void out_of_order(Setup& setup, PartResult& result) {
  result.checked = "in-order: each START >= previous END";
  const cl::CommandQueue ordered = in_order_queue(setup);
  const cl::CommandQueue unordered = out_of_order_queue(setup);
  Bench bench(setup, setup.env->context);
  const cl_uint salts[] = {kSaltK1, kSaltK2, kSaltK3};
  std::vector<double> gaps, spans_ordered, spans_unordered, overlaps;
  int rounds_overlapping = 0;
  for (int round = 0; round < setup.options->reps && result.failures.empty(); ++round) {
    for (const cl::CommandQueue* queue : {&ordered, &unordered}) {
      const bool in_order = queue == &ordered;
      std::vector<cl::Buffer> outs;
      std::vector<cl::Event> events;
      for (const cl_uint salt : salts) {
        outs.push_back(bench.output());
        events.push_back(bench.busy(setup.kernels, *queue, salt, outs.back()));
      }
      queue->finish();
      std::vector<Stamps> s;
      nlohmann::json stamps = nlohmann::json::array();
      for (std::size_t k = 0; k < events.size(); ++k) {
        record(events[k], "k" + std::to_string(k + 1) + " events_busy");
        s.push_back(stamps_of(events[k]));
        stamps.push_back(stamps_json(s.back(), s.front().queued));
        bench.verify(*queue, outs[k], bench.reference(salts[k]),
                     std::string(in_order ? "in-order" : "out-of-order") + " k" +
                         std::to_string(k + 1) + " output",
                     result);
      }
      cl_ulong first = s[0].start, last = s[0].end;
      for (const Stamps& x : s) first = std::min(first, x.start), last = std::max(last, x.end);
      (in_order ? spans_ordered : spans_unordered).push_back(seconds_between(first, last));
      if (in_order) {
        for (std::size_t k = 1; k < s.size(); ++k) {
          gaps.push_back(seconds_between(s[k - 1].end, s[k].start));
          check_order(result, "on the in-order queue kernel " + std::to_string(k + 1), s[k],
                      "kernel " + std::to_string(k), s[k - 1],
                      "an in-order queue runs its commands one after another");
        }
      } else {
        double most = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
          for (std::size_t j = i + 1; j < s.size(); ++j)
            most = std::max(most, overlap_seconds(s[i], s[j]));
        }
        overlaps.push_back(most);
        if (most > 0) ++rounds_overlapping;
      }
      result.details[in_order ? "in_order_last_round" : "out_of_order_last_round"] = stamps;
    }
  }
  result.details["in_order_gap_s"] = gaps;
  result.details["out_of_order_overlap_s"] = overlaps;
  result.details["span_in_order_s"] = spans_ordered;
  result.details["span_out_of_order_s"] = spans_unordered;
  const std::size_t rounds = spans_unordered.size();
  result.measured =
      "in order: " + after_or_before(median(gaps)) + " the previous; out of order: overlap in " +
      std::to_string(rounds_overlapping) + " of " + std::to_string(rounds) + " rounds";
  result.notes.push_back(
      (rounds_overlapping > 0
           ? "the out-of-order queue ran independent kernels at the same time (up to " +
                 lab::format_seconds(*std::max_element(overlaps.begin(), overlaps.end())) +
                 " of overlap): allowed, never promised"
           : std::string("the out-of-order queue ran the kernels one after another: allowed, "
                         "since it may, but need not, overlap independent commands")) +
      "; 3 kernels took " + lab::format_seconds(median(spans_unordered)) + " out of order, " +
      lab::format_seconds(median(spans_ordered)) + " in order");
}

}  // namespace events
