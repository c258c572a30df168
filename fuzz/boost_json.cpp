// Boost.JSON compiled into the fuzz build from its header-only form (instead of linking the
// distribution's uninstrumented libboost_json), so that libFuzzer sees coverage inside the JSON
// parser every body and message goes through.
#include <boost/json/src.hpp>
