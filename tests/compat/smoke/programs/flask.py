# flask: an app with a blueprint, JSON, templates, errors, test client
from flask import Blueprint, Flask, abort, jsonify, render_template_string, request

app = Flask("smoke")
bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/items/<int:item_id>")
def item(item_id):
    if item_id > 10:
        abort(404)
    return jsonify(id=item_id, q=request.args.get("q"))


@app.route("/hello/<name>")
def hello(name):
    return render_template_string("Hello {{ name|title }}!", name=name)


@app.errorhandler(404)
def missing(e):
    return {"error": "not found"}, 404


app.register_blueprint(bp)
with app.test_client() as c:
    print(c.get("/hello/world").get_data(as_text=True))
    r = c.get("/api/items/3?q=x")
    print(r.status_code, r.get_json())
    r = c.get("/api/items/30")
    print(r.status_code, r.get_json())
with app.test_request_context("/x"):
    from flask import url_for
    print(url_for("api.item", item_id=5))
print(sorted(r.rule for r in app.url_map.iter_rules()))
