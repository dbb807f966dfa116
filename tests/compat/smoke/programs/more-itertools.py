# more-itertools: chunking, windows, partitioning, peeking
import more_itertools as mi

print(list(mi.chunked(range(7), 3)), list(mi.windowed([1, 2, 3, 4], 2)))
evens, odds = mi.partition(lambda x: x % 2, range(8))
print(list(evens), list(odds), mi.first([], default="none"), mi.last("abc"))
p = mi.peekable(iter("xyz"))
print(p.peek(), list(p), list(mi.flatten([[1], [2, 3]])), list(mi.unique_everseen("abracadabra")))
print(mi.ilen(range(10)), list(mi.distinct_permutations("aab")), list(mi.pairwise("abc")))
print(mi.map_reduce("apple avocado banana".split(), keyfunc=lambda w: w[0]))
