from json import JSONDecoder
