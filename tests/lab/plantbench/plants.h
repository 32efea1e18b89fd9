// The factories of the plants, one file each (MakePlant in real_plant.cc picks by name). What
// each plant does is said in its file and in docs/PLANTS.md.
//
// Thread-safety: pure factories.
#ifndef BLOBTUNE_TESTS_LAB_PLANTBENCH_PLANTS_H_
#define BLOBTUNE_TESTS_LAB_PLANTBENCH_PLANTS_H_

#include <cstddef>
#include <memory>
#include <string>

#include "real_plant.h"

namespace blobtune::plantbench {

// Durable puts of `blob_bytes` through AsyncBlobStore's write limiter (store_put_plant.cc).
std::unique_ptr<RealPlant> MakeStorePutPlant(std::string name, size_t blob_bytes);
// The same against a RADOS store on a throwaway Ceph cluster (store_put_plant.cc).
std::unique_ptr<RealPlant> MakeRadosPutPlant(std::string name, size_t blob_bytes);
// Permit, 2 ms of network wait, durable 100 KiB put under that permit (wait_then_put_plant.cc).
std::unique_ptr<RealPlant> MakeWaitThenPutPlant();
// AsyncGet of cached 10 KiB blobs through the read limiter (cached_get_plant.cc).
std::unique_ptr<RealPlant> MakeCachedGetPlant();
// BlobServer loaded over loopback HTTP by load::RunLoad (server_plant.cc).
std::unique_ptr<RealPlant> MakeServerPlant();
// The delivery's MailServer: GET a message, then the client's local work (delivery_plant.cc).
std::unique_ptr<RealPlant> MakeDeliveryPlant();
// AES-256-GCM on a pool of two threads, then a durable 64 KiB put (encrypt_put_plant.cc).
std::unique_ptr<RealPlant> MakeEncryptPutPlant();
// 64 KiB writes into a shared table under one spin lock, on 8 workers (locked_write_plant.cc).
std::unique_ptr<RealPlant> MakeLockedWritePlant();

}  // namespace blobtune::plantbench

#endif  // BLOBTUNE_TESTS_LAB_PLANTBENCH_PLANTS_H_
