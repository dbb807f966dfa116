# scikit-learn: a pipeline on the bundled iris data, cross validation, metrics
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import cross_val_score, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

X, y = load_iris(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))
pipe.fit(X_train, y_train)
print(round(accuracy_score(y_test, pipe.predict(X_test)), 4))
scores = cross_val_score(DecisionTreeClassifier(random_state=0), X, y, cv=5)
print([round(s, 4) for s in scores])
print(pipe.named_steps.keys() == {"standardscaler", "logisticregression"}.__class__(
    pipe.named_steps.keys()), list(pipe.named_steps))
