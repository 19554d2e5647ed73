// cxx.cpp: a C++ function template in a namespace, whose name must be demangled.
namespace geo {
template <typename T> __attribute__((noinline)) T scale(T v, int k)
{
	volatile T r = v;
	for (int i = 0; i < k; i++)
		r = r * 2; // @scale_body
	return r;
}
} // namespace geo

int main(int argc, char **)
{
	return (int)geo::scale<double>(argc, 3);
}
