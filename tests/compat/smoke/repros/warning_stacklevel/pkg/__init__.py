from pkg.client import Client
