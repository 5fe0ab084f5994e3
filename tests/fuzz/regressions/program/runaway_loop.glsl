// A loop that never ends: the budget must stop it with an error at the loop.
void pose() {
  float x = 0.0;
  while (x >= 0.0) { x += 1.0; }
  POSITION.x = x;
}
