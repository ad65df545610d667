// C++ names in every output (issue 19): two instantiations of one template whose arguments are
// function types, a lambda comparator, operator() and operator<<, an anonymous namespace.
// Each function is its own (noipa: no identical-code folding, no inlining).
#include <algorithm>
#include <vector>
#include <iostream>
static volatile long sink;
namespace { __attribute__((noipa)) long anon_spin(long n){ long s=0; for(long i=0;i<n;i++) { s+=i*i^s; sink=s; } return s; } }
template<class F> __attribute__((noipa)) long work(long n){ long s=sizeof(F*); for(long i=0;i<n;i++) { s+=i^(s>>3); sink=s; } return s; }
struct Op { long v; __attribute__((noipa)) long operator()(long n) const { long s=v; for(long i=0;i<n;i++) { s+=i*3^s; sink=s; } return s; } };
struct P { long v; };
__attribute__((noipa)) std::ostream &operator<<(std::ostream &o, const P &p){ long s=0; for(long i=0;i<p.v;i++) { s+=i*7^s; sink=s; } return o << s; }
int main(){
  long t=0;
  for(int r=0;r<4;r++){
    t+=work<int(int)>(30000000);
    t+=work<int(double)>(10000000);
    t+=anon_spin(10000000);
    t+=Op{1}(10000000);
    std::cout << P{10000000} << "\n";
    std::vector<long> v(200000); for(size_t i=0;i<v.size();i++) v[i]=(i*7919)%100003;
    std::sort(v.begin(), v.end(), [](long a, long b){ return a > b; });
    t+=v[0];
  }
  return (int)(t&1);
}
/* SPDX-License-Identifier: MIT */
