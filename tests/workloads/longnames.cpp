// C++ functions whose demangled names are hundreds of characters long (nested templates and
// long parameter lists), for the report's 100-column layout.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace very_long_namespace_name_for_layout_tests {
template <typename Key, typename Value, typename Extra> struct RatherLongTemplateName {
    __attribute__((noinline)) double
    accumulate_everything(const std::map<std::string, std::vector<Key>> &index,
                          const std::vector<std::map<Value, std::string>> &rows,
                          unsigned long iterations) const
    {
        volatile double x = (double)index.size() + (double)rows.size();
        for (unsigned long i = 0; i < iterations; i++)
            x = x * 1.000001 + (double)i;
        return x;
    }
};
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 100000000;
    very_long_namespace_name_for_layout_tests::RatherLongTemplateName<
        std::vector<std::map<int, std::string>>, std::map<std::string, std::vector<long>>,
        std::pair<std::string, std::vector<std::vector<double>>>> t;
    std::printf("%d\n", (int)t.accumulate_everything({}, {}, n) & 1);
    return 0;
}
/* SPDX-License-Identifier: MIT */
