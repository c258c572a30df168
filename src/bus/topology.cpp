// Declares the request work queue, its consumers and the large-message stream.
#include "bus/topology.h"

#include "bus/subjects.h"

namespace supportd::bus {

Status declare_topology(JetStream& jetstream, const ClusterSettings& settings) {
  StreamSpec requests;
  requests.name = subjects::kRequestStream;
  for (int p = 0; p < sched::kPriorityCount; ++p)
    requests.subjects.push_back(subjects::request(static_cast<sched::Priority>(p)));
  requests.work_queue = true;
  requests.max_per_subject = settings.queue_bound;
  requests.max_age = std::chrono::hours(24);  // nothing waits a day; orphans do not pile up
  if (Status s = jetstream.ensure_stream(requests); !s) return s;

  StreamSpec blobs;
  blobs.name = subjects::kBlobStream;
  blobs.subjects = {std::string(subjects::kBlobPrefix) + ">"};
  blobs.max_age = std::chrono::hours(1);
  if (Status s = jetstream.ensure_stream(blobs); !s) return s;

  for (int p = 0; p < sched::kPriorityCount; ++p) {
    const auto priority = static_cast<sched::Priority>(p);
    ConsumerSpec consumer{std::string(subjects::kRequestStream), subjects::consumer(priority),
                          subjects::request(priority), settings.ack_wait, settings.max_deliver};
    if (Status s = jetstream.ensure_consumer(consumer); !s) return s;
  }
  return {};
}

}  // namespace supportd::bus
