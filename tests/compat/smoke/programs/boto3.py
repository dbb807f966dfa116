# boto3/botocore: clients built offline for a region, the Stubber, paginators, waiters
import os

os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
os.environ["AWS_CONFIG_FILE"] = os.devnull
os.environ["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull

import boto3  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402
from botocore.stub import Stubber  # noqa: E402

session = boto3.Session(aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret",
                        region_name="eu-west-1")
s3 = session.client("s3")
print(s3.meta.region_name, s3.meta.endpoint_url, s3.can_paginate("list_objects_v2"))
with Stubber(s3) as stub:
    stub.add_response("list_buckets", {"Buckets": [{"Name": "b1"}, {"Name": "b2"}]})
    stub.add_client_error("get_object", service_error_code="NoSuchKey", http_status_code=404)
    print([b["Name"] for b in s3.list_buckets()["Buckets"]])
    try:
        s3.get_object(Bucket="b1", Key="missing")
    except ClientError as e:
        print("ClientError", e.response["Error"]["Code"])
ddb = session.resource("dynamodb", region_name="us-east-1")
print(type(ddb).__name__, ddb.meta.client.meta.region_name, "get_item" in ddb.meta.client.meta.method_to_api_mapping)
print(sorted(session.client("sqs").waiter_names)[:3], len(session.get_available_services()) > 100)
