// Faust's architecture headers declare these statics and leave their definition to the one
// architecture .cpp of a program (see /usr/share/faust/jack-console.cpp). This is that place.
#include <faust/gui/GUI.h>

std::list<GUI*> GUI::fGuiList;
ztimedmap GUI::gTimedZoneMap;
