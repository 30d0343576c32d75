// The second file of the program: it holds copies of tally() and std::vector<long>'s code,
// as app.cpp does (tally.h).
#include "tally.h"

long tally_of_squares(long count) {
  std::vector<long> squares;
  for (long i = 0; i < count; ++i) squares.push_back(i * i);
  return tally(squares);
}
