#pragma once
// The emitters fill the Mustache templates in templates/ (kainjow mustache). The templates are
// embedded into the binary at build time (embed_templates.cmake); MESH2DSP_TEMPLATE_DIR, when
// set, reads them from that directory instead so a template can be tried without rebuilding.
#include <kainjow/mustache.hpp>
#include <map>
#include <string>
#include <string_view>

namespace mesh2dsp {

using TemplateData = kainjow::mustache::data;

// Every embedded template, keyed by its path under templates/ ("faust/model.dsp.mustache").
const std::map<std::string, std::string_view>& embedded_templates();

// Renders templates/<name> with `data`. No HTML escaping: values are program text that the
// emitters have already made safe. Throws mesh2dsp::Error on a missing or malformed template.
std::string render_template(const std::string& name, const TemplateData& data);

// A Mustache list of numbers as {value, comma} items, so templates can write
// "{{#list}}{{value}}{{comma}}{{/list}}" without a trailing separator.
TemplateData number_list(const std::vector<std::string>& values, const std::string& separator = ",");

}  // namespace mesh2dsp
