# fastapi: an app with a pydantic model, a dependency, the TestClient
from fastapi import Depends, FastAPI, HTTPException
from fastapi.testclient import TestClient
from pydantic import BaseModel

app = FastAPI(title="smoke")


class Item(BaseModel):
    name: str
    price: float
    tags: list[str] = []


def token(x_token: str = "none"):
    return x_token


DB = {}


@app.post("/items/{item_id}")
def create(item_id: int, item: Item, tok: str = Depends(token)):
    DB[item_id] = item
    return {"id": item_id, "item": item, "token": tok}


@app.get("/items/{item_id}")
def read(item_id: int):
    if item_id not in DB:
        raise HTTPException(status_code=404, detail="no such item")
    return DB[item_id]


client = TestClient(app)
print(client.post("/items/1?x_token=t", json={"name": "a", "price": 2.5}).json())
print(client.get("/items/1").json())
r = client.get("/items/2")
print(r.status_code, r.json())
r = client.post("/items/3", json={"name": "b"})
print(r.status_code, [e["loc"] for e in r.json()["detail"]])
print(sorted(app.openapi()["paths"]))
