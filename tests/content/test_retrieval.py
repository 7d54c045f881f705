from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from tests.store.test_conformance import write_course
from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.content.seeding import seed_content
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath


def test_search_finds_the_passage_and_rebuilds_when_content_changes(
    database: Database, tmp_path: Path
) -> None:
    content = tmp_path / "content"
    write_course(content)
    indexes = SearchIndexes(tmp_path / "index")
    with database.session() as session:
        seed_content(session=session, content_dir=content)
        course = session.scalars(select(LearningPath)).one()
        hits = indexes.search(session=session, query="divide by sqrt", courses=[course], k=3)
        assert hits[0].lesson == "attn" and hits[0].source == "reference_kb"
        assert hits[0].heading_path == ["Scaling"]
        assert indexes.search(session=session, query="zebra", courses=[course]) == []
    assert (tmp_path / "index" / "demo" / "fingerprint").exists()

    (content / "demo" / "enrichment" / "attn_reference_kb.md").write_text(
        "## Temperature\n\nA zebra-striped softmax temperature.\n"
    )
    with database.session() as session:
        seed_content(session=session, content_dir=content)
        course = session.scalars(select(LearningPath)).one()
        # a fresh process: the persisted index is stale and is rebuilt from the database
        fresh = SearchIndexes(tmp_path / "index")
        hits = fresh.search(session=session, query="zebra", courses=[course])
        assert hits and hits[0].heading_path == ["Temperature"]
        scoped = fresh.search(session=session, query="hello", courses=[course], lesson="attn")
        assert scoped == []
        other = fresh.search(session=session, query="hello", courses=[course], lesson="intro")
        assert [h.lesson for h in other] == ["intro"]
