"""Split manage.py export_matches's NDJSON into one pretty JSON file per match (indent=1, key order as exported),
named by out/match_ids.json: python out/split_records.py out/all_v1.ndjson out/records_v1"""
import json
import sys
from pathlib import Path

source, folder = Path(sys.argv[1]), Path(sys.argv[2])
names = {match_id: stem for stem, match_id in json.loads((source.parent / "match_ids.json").read_text()).items()}
folder.mkdir(parents=True, exist_ok=True)
written = set()
for line in source.read_text(encoding="utf-8").splitlines():
    record = json.loads(line)
    stem = names.get(record["match"])
    if stem is None:
        continue  # a match played and not kept (none on a fresh database)
    (folder / f"{stem}.json").write_text(json.dumps(record, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    written.add(stem)
missing = set(names.values()) - written
if missing:
    sys.exit(f"not in the export: {sorted(missing)}")
print(f"{len(written)} files written to {folder}")
