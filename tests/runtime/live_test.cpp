// Placeholder; the live tests follow.
#include <gtest/gtest.h>
