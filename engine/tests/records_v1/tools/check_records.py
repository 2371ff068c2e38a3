"""Check out/records_v1/*.json: verify_record passes, the JSON Schema holds, and (with the database that played them,
run through manage.py shell) each equals GET /api/matches/<id>/record/ and selectors.match_export."""
import json
from pathlib import Path

import jsonschema
from rest_framework.test import APIClient

from eights_engine.record import verify_record
from games.models import Match
from games.selectors import match_export

schema = json.loads(Path("docs/match-record.schema.json").read_text())
client = APIClient()
for path in sorted(Path("out/records_v1").glob("*.json")):
    record = json.load(open(path, encoding="utf-8"))
    state = verify_record(record)  # raises ReplayMismatch on any difference
    jsonschema.validate(record, schema)
    api = client.get(f"/api/matches/{record['match']}/record/")
    assert api.status_code == 200 and api.json() == record, (path, api.status_code)
    assert json.loads(json.dumps(match_export(match=Match.objects.get(pk=record["match"])))) == record, path
    deals = record["deals"]
    assert all(len(d["salt"]) == 32 and len(d["commitment"]) == 64 for d in deals), path
    print(f"{path.name}: {path.stat().st_size} bytes, format {record['format']}, engine_version "
          f"{record['engine_version']!r}, preset {record['preset']!r}, seats {record['seats']}, seed {record['seed']}, "
          f"{len(deals)} deals, {sum(len(d['actions']) for d in deals)} plies, partnership "
          f"{record['ruleset'].get('partnership')}, single_deal {record.get('single_deal')}, players "
          f"{[(p['name'], p['kind']) for p in record['players']]}, totals {record['result']['totals']}, "
          f"verify_record: OK ({state.is_over=})")
