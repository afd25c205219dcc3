// The seeded catalog, made once per test run instead of once per test.
//
// The catalog a fresh `make run` serves takes a noticeable share of a second to seed, and
// about 250 tests start from it (each a process of its own under ctest). ctest's fixture
// test `SeededTemplate.Create` (tests/CMakeLists.txt) runs `gpuplan migrate` once into the
// file that the environment variable GPUPLAN_TEST_SEEDED_DB names; the tests copy that file
// into their own database with SQLite's backup API: the same rows, migrations and metadata
// that SeedIfEmpty writes, because the template is what SeedIfEmpty wrote.
//
// Outside ctest (a test binary run by hand, no variable or no file) nothing is copied and
// the caller seeds as before, so a test never depends on the fixture to be correct.
#pragma once

#include <string>

#include "db/sql.h"

namespace gpuplan::testing {

// Copies the template into `into`, which must be empty (a new file or ":memory:"). Returns
// false, having written nothing, when there is no template; a template that exists but
// cannot be copied fails the calling test (gtest ADD_FAILURE) and also returns false.
bool CopySeededTemplate(db::Connection& into);

// The same for a database file that does not exist yet: creates `path` from the template.
bool CopySeededTemplate(const std::string& path);

}  // namespace gpuplan::testing
