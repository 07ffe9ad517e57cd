#include "common/relation_traits.h"

namespace pglayout {

const char* PersistenceName(Persistence persistence) {
  switch (persistence) {
    case Persistence::kUnlogged:
      return "unlogged";
    case Persistence::kTemporary:
      return "temporary";
    case Persistence::kPermanent:
      break;
  }
  return "permanent";
}

const char* ReplicaIdentityName(ReplicaIdentity identity) {
  switch (identity) {
    case ReplicaIdentity::kFull:
      return "full";
    case ReplicaIdentity::kIndex:
      return "index";
    case ReplicaIdentity::kNothing:
      return "nothing";
    case ReplicaIdentity::kDefault:
      break;
  }
  return "default";
}

bool ParsePersistence(const std::string& name, Persistence* persistence) {
  for (Persistence p : {Persistence::kPermanent, Persistence::kUnlogged,
                        Persistence::kTemporary}) {
    if (name == PersistenceName(p)) {
      *persistence = p;
      return true;
    }
  }
  return false;
}

bool ParseReplicaIdentity(const std::string& name, ReplicaIdentity* identity) {
  for (ReplicaIdentity r :
       {ReplicaIdentity::kDefault, ReplicaIdentity::kFull,
        ReplicaIdentity::kIndex, ReplicaIdentity::kNothing}) {
    if (name == ReplicaIdentityName(r)) {
      *identity = r;
      return true;
    }
  }
  return false;
}

Persistence PersistenceFromCode(char code) {
  return code == 'u'   ? Persistence::kUnlogged
         : code == 't' ? Persistence::kTemporary
                       : Persistence::kPermanent;
}

ReplicaIdentity ReplicaIdentityFromCode(char code) {
  return code == 'f'   ? ReplicaIdentity::kFull
         : code == 'i' ? ReplicaIdentity::kIndex
         : code == 'n' ? ReplicaIdentity::kNothing
                       : ReplicaIdentity::kDefault;
}

}  // namespace pglayout
