#include "cli/table.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tensorperf::cli {
namespace {

TEST(Table, AlignsColumnsAndCutsLongCells) {
  Table t({{"name"}, {"ms", Align::kRight}, {"note", Align::kLeft, 8}});
  t.add_row({"conv", "1.25", "short"});
  t.add_row({"dense_layer", "12.5", "a very long note"});
  t.add_footer({"total", "13.75", ""});
  EXPECT_EQ(t.render(),
            "name            ms  note\n"
            "----------------------------\n"
            "conv          1.25  short\n"
            "dense_layer   12.5  a ver...\n"
            "----------------------------\n"
            "total        13.75  \n");
}

TEST(Table, RejectsRowsOfTheWrongWidth) {
  Table t({{"a"}, {"b"}});
  t.add_row({"only one"});
  EXPECT_THROW(t.render(), std::logic_error);
}

}  // namespace
}  // namespace tensorperf::cli
