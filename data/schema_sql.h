// The trace store's schema (data/schema.sql), embedded into the binary at build time so a
// store can be created or migrated without the source tree.
#pragma once

namespace millrace::data {

extern const char* const kSchemaSql;

}  // namespace millrace::data
