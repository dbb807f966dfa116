# networkx: graphs, shortest paths, centrality, components, a DAG
import networkx as nx

G = nx.Graph()
G.add_weighted_edges_from([("a", "b", 1), ("b", "c", 2), ("a", "c", 5), ("c", "d", 1), ("e", "f", 1)])
print(nx.shortest_path(G, "a", "d", weight="weight"), nx.shortest_path_length(G, "a", "d", weight="weight"))
print(sorted(sorted(c) for c in nx.connected_components(G)))
print({k: round(v, 4) for k, v in sorted(nx.degree_centrality(G).items())})
print({k: round(v, 4) for k, v in sorted(nx.pagerank(G).items())})
D = nx.DiGraph([("shop", "cook"), ("cook", "eat"), ("shop", "eat")])
print(list(nx.topological_sort(D)), nx.is_directed_acyclic_graph(D))
print(nx.minimum_spanning_tree(G).size(weight="weight"), nx.karate_club_graph().number_of_edges())
