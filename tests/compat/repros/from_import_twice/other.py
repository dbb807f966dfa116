import json
