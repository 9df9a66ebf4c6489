#include "emit/template_engine.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "util/error.hpp"

namespace mesh2dsp {

namespace {

std::string template_text(const std::string& name) {
  if (const char* dir = std::getenv("MESH2DSP_TEMPLATE_DIR"); dir && *dir) {
    std::ifstream in(std::string(dir) + "/" + name, std::ios::binary);
    if (!in) throw Error(fmt::format("template {} not found in MESH2DSP_TEMPLATE_DIR={}", name, dir));
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  const auto& all = embedded_templates();
  auto it = all.find(name);
  if (it == all.end()) throw Error(fmt::format("template {} is not built into this binary", name));
  return std::string(it->second);
}

}  // namespace

std::string render_template(const std::string& name, const TemplateData& data) {
  kainjow::mustache::mustache tmpl{template_text(name)};
  if (!tmpl.is_valid())
    throw Error(fmt::format("template {}: {}", name, tmpl.error_message()));
  tmpl.set_custom_escape([](const std::string& s) { return s; });
  std::string out = tmpl.render(data);
  if (!tmpl.is_valid())
    throw Error(fmt::format("template {}: {}", name, tmpl.error_message()));
  return out;
}

TemplateData number_list(const std::vector<std::string>& values, const std::string& separator) {
  TemplateData list{TemplateData::type::list};
  for (size_t i = 0; i < values.size(); ++i) {
    TemplateData item;
    item.set("value", values[i]);
    item.set("comma", i + 1 < values.size() ? separator : std::string());
    list.push_back(item);
  }
  return list;
}

}  // namespace mesh2dsp
