// C ABI over toml++ (see toml_adapter.h). Exceptions never cross into C.
#include "server/toml_adapter.h"

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

namespace {

struct holder {
    std::vector<std::string> strings; // keeps each string alive for the callback
    std::vector<std::vector<tomla_value>> arrays;
};

tomla_value convert(const toml::node &n, holder &h, bool allow_array)
{
    tomla_value v{};
    v.line = static_cast<unsigned>(n.source().begin.line);
    if (auto s = n.as_string()) {
        v.type = TOMLA_STRING;
        h.strings.emplace_back(s->get());
        v.str = nullptr; // fixed up by the caller after all strings exist
        v.n_items = h.strings.size() - 1; // index into h.strings until fix-up
    } else if (auto i = n.as_integer()) {
        v.type = TOMLA_INT;
        v.i = i->get();
    } else if (auto f = n.as_floating_point()) {
        v.type = TOMLA_FLOAT;
        v.f = f->get();
    } else if (auto b = n.as_boolean()) {
        v.type = TOMLA_BOOL;
        v.b = b->get();
    } else if (n.is_table()) {
        v.type = TOMLA_TABLE;
    } else if (auto a = n.as_array(); a && allow_array) {
        v.type = TOMLA_ARRAY;
        std::vector<tomla_value> items;
        for (const auto &e : *a) items.push_back(convert(e, h, false));
        h.arrays.push_back(std::move(items));
        v.n_items = h.arrays.size() - 1; // index until fix-up
    } else {
        v.type = TOMLA_OTHER;
    }
    return v;
}

// Strings and arrays were stored by index while the vectors could still grow.
void fix_up(tomla_value &v, holder &h)
{
    if (v.type == TOMLA_STRING) {
        v.str = h.strings[v.n_items].c_str();
        v.n_items = 0;
    } else if (v.type == TOMLA_ARRAY) {
        auto &items = h.arrays[v.n_items];
        for (auto &e : items) fix_up(e, h);
        v.items = items.data();
        v.n_items = items.size();
    }
}

int visit(const std::string &section, const std::string &key, const toml::node &n,
          tomla_visit_fn fn, void *ud)
{
    holder h;
    tomla_value v = convert(n, h, true);
    fix_up(v, h);
    return fn(ud, section.c_str(), key.c_str(), &v);
}

} // namespace

extern "C" int tomla_walk(const char *text, size_t len, tomla_visit_fn fn, void *ud, char *err,
                          size_t errlen)
{
    try {
        toml::table doc = toml::parse(std::string_view(text, len));
        for (const auto &[k, node] : doc) {
            std::string key(k.str());
            if (const toml::table *t = node.as_table()) {
                for (const auto &[k2, node2] : *t) {
                    int rc = visit(key, std::string(k2.str()), node2, fn, ud);
                    if (rc) return rc;
                }
            } else {
                int rc = visit("", key, node, fn, ud);
                if (rc) return rc;
            }
        }
        return 0;
    } catch (const toml::parse_error &e) {
        if (err && errlen)
            std::snprintf(err, errlen, "line %u, column %u: %.*s",
                          static_cast<unsigned>(e.source().begin.line),
                          static_cast<unsigned>(e.source().begin.column),
                          static_cast<int>(e.description().size()), e.description().data());
        return -1;
    } catch (const std::exception &e) {
        if (err && errlen) std::snprintf(err, errlen, "%s", e.what());
        return -1;
    }
}
