// libjson-rpc-cpp 0.7.0, as Debian ships it, declares its functions with
// dynamic exception specifications (`throw(JsonRpcException)`, `throw()`),
// which C++17 removed: g++ refuses them. Its headers are read here with
// each one spelled as the noexcept it stands for (`throw()` is
// noexcept(true), `throw(X)` noexcept(false)), and with everything they
// include read first, so that the macro touches only their own lines.
// Include libjson-rpc-cpp through this header only.
#pragma once

#include <curl/curl.h>
#include <json/json.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdint.h>

#include <exception>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#pragma push_macro("throw")
#define throw(...) noexcept(sizeof(#__VA_ARGS__) == 1)
#include <jsonrpccpp/client.h>
#include <jsonrpccpp/client/connectors/httpclient.h>
#include <jsonrpccpp/common/errors.h>
#include <jsonrpccpp/server.h>
#include <jsonrpccpp/version.h>
#pragma pop_macro("throw")
