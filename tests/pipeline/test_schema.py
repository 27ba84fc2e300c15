from __future__ import annotations

from typing import Any

import pytest

from restwire import EntityError, Invalidate
from restwire._schema import MISSING, Batch, Ref, denormalize, normalize
from tests.pipeline.entities import Article, Post, Stream, User


def roundtrip(schema: Any, value: Any) -> tuple[Any, Batch, Any]:
    batch = Batch()
    normalized = normalize(schema, value, batch, {})
    return normalized, batch, denormalize(schema, normalized, batch.records)


def test_an_entity_becomes_a_reference_and_reads_back() -> None:
    normalized, batch, read = roundtrip(Post, {"id": "1", "title": "t"})
    assert normalized == Ref("Post", "1")
    assert batch.records == {("Post", "1"): Post(id="1", title="t")}
    assert read == Post(id="1", title="t")


def test_lists_and_objects_nest_to_any_depth() -> None:
    value = {"link": "<x>", "results": [{"id": "1"}, {"id": "2"}], "meta": {"n": 2}}
    normalized, _, read = roundtrip({"results": [Post]}, value)
    assert normalized == {
        "link": "<x>",
        "results": [Ref("Post", "1"), Ref("Post", "2")],
        "meta": {"n": 2},
    }
    assert read == {
        "link": "<x>",
        "results": [Post(id="1"), Post(id="2")],
        "meta": {"n": 2},
    }
    page = {"page": {"items": [[{"id": "3"}]]}}
    assert roundtrip({"page": {"items": [[Post]]}}, page)[2] == {
        "page": {"items": [[Post(id="3")]]}
    }


def test_the_same_entity_twice_in_one_response_is_one_merged_record() -> None:
    value = [{"username": "sky", "title": "a"}, {"username": "sky", "game": "go"}]
    _, batch, read = roundtrip([Stream], value)
    assert len(batch.records) == 1
    merged = Stream(username="sky", title="a", game="go")
    assert read == [merged, merged]


def test_nested_entities_are_normalized_into_their_own_records() -> None:
    value = {"id": 1, "title": "t", "author": {"id": 9, "name": "ann"}}
    normalized, batch, read = roundtrip(Article, value)
    assert batch.records[("Article", "1")].author == Ref("User", "9")
    assert normalized == Ref("Article", "1")
    assert set(batch.records) == {("Article", "1"), ("User", "9")}
    assert read.author == User(id=9, name="ann")


def test_entities_that_refer_to_each_other_read_back_without_looping() -> None:
    value = {
        "id": 9,
        "name": "ann",
        "posts": [{"id": 1, "title": "t", "author": {"id": 9}}],
    }
    _, _, user = roundtrip(User, value)
    assert user.posts[0].title == "t"
    assert user.posts[0].author is user


def test_a_deleted_record_drops_out_of_lists_and_invalidates_elsewhere() -> None:
    batch = Batch()
    listed = normalize([Post], [{"id": "1"}, {"id": "2"}], batch, {})
    single = normalize({"post": Post}, {"post": {"id": "1"}}, batch, {})
    records = dict(batch.records)
    del records[("Post", "1")]
    assert denormalize([Post], listed, records) == [Post(id="2")]
    assert denormalize({"post": Post}, single, records) is MISSING
    assert denormalize(Post, Ref("Post", "1"), records) is MISSING


def test_invalidate_takes_the_pk_from_the_body_or_the_params() -> None:
    batch = Batch()
    normalize(Invalidate(Post), None, batch, {"id": 5})
    normalize(Invalidate(Post), {"id": "6", "title": "gone"}, batch, {"id": 7})
    assert batch.deleted == {("Post", "5"), ("Post", "6")}


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        (Post, ["x"], "Post: expected an object"),
        ([Post], {"id": "1"}, "expected a list"),
        ({"results": [Post]}, [1], "expected an object"),
        (Post, {"title": "no id"}, "Post: has no primary key"),
        (Post, 7, "Post: expected an object"),
    ],
)
def test_data_of_the_wrong_shape_is_a_clear_error(
    schema: Any, value: Any, message: str
) -> None:
    with pytest.raises(EntityError, match=message):
        normalize(schema, value, Batch(), {})


def test_a_pk_that_is_not_text_is_an_error() -> None:
    class NumericPk(Post):
        def pk(self) -> Any:
            return 5

    with pytest.raises(EntityError, match="pk\\(\\) must return text, not int"):
        normalize(NumericPk, {"id": 5}, Batch(), {})


def test_no_schema_means_the_value_as_it_is() -> None:
    value = {"a": [1, {"b": 2}]}
    assert roundtrip(None, value)[2] is value


def test_data_outside_the_schema_is_never_walked() -> None:
    deep: Any = []
    for _ in range(10_000):
        deep = [deep]
    value = {"results": [{"id": "1"}], "deep": deep}
    assert roundtrip({"results": [Post]}, value)[2]["deep"] is deep
